import type { en } from './en.ts';

/**
 * The spec's fixed messages (platform-core section 8, devices-and-commerce section 8) that peers still
 * send as text only: the gateway's refusals carry `data.message` without a key, and a push target's stored
 * message is text (docs/DECISIONS.md). Their English texts are written out here, each typed as en.ts's
 * literal, so a change to one there does not compile until it is made here: reading such a text needs no
 * whole table (the console holds only the table of the language it shows; issue 21).
 */
export const SPEC_TEXTS: {
  readonly [K in 'common.permissionDenied' | 'common.tooFrequent' | 'common.requestTimeout' | 'common.verificationCodeError' | 'common.noPermission' | 'device.offline' | 'device.linuxCannot']: (typeof en)[K];
} = {
  'common.permissionDenied': 'Permission denied or Session expire',
  'common.tooFrequent': 'You click too frequently！',
  'common.requestTimeout': 'Request Timeout',
  'common.verificationCodeError': 'Verification Code Error!',
  'common.noPermission': 'No permission available!',
  'device.offline': 'The equipment is offline',
  'device.linuxCannot': 'Linux devices cannot do this',
};
