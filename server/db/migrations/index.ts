import type { Migration } from 'kysely/migration';
import * as m0001 from './0001-initial.ts';
import * as m0002 from './0002-organisations-and-accounts.ts';
import * as m0003 from './0003-notices.ts';
import * as m0004 from './0004-documents.ts';
import * as m0005 from './0005-operation-log.ts';
import * as m0006 from './0006-authoring.ts';
import * as m0007 from './0007-device-operations.ts';
import * as m0008 from './0008-fleet-operations.ts';
import * as m0009 from './0009-telemetry.ts';
import * as m0010 from './0010-cards-and-commerce.ts';
import * as m0011 from './0011-content.ts';
import * as m0012 from './0012-device-holder.ts';
import * as m0013 from './0013-document-owner.ts';
import * as m0014 from './0014-account-names-ignore-case.ts';
import * as m0015 from './0015-api-tokens-and-webhooks.ts';
import * as m0016 from './0016-org-public-key.ts';
import * as m0017 from './0017-operation-log-target-name.ts';
import * as m0018 from './0018-abnormal-type-index.ts';
import * as m0019 from './0019-totp.ts';
import * as m0020 from './0020-oidc-identities.ts';
import * as m0022 from './0022-campaign-schedule.ts';
import * as m0023 from './0023-device-timeline.ts';
import * as m0024 from './0024-recordings.ts';
import * as m0025 from './0025-approvals.ts';
import * as m0026 from './0026-dynamic-groups-and-views.ts';
import * as m0028 from './0028-recording-views.ts';
import * as m0029 from './0029-custom-device-fields.ts';
import * as m0030 from './0030-device-secret-pending.ts';

/** Every migration, in order. Names sort by their numeric prefix. */
export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-organisations-and-accounts': m0002,
  '0003-notices': m0003,
  '0004-documents': m0004,
  '0005-operation-log': m0005,
  '0006-authoring': m0006,
  '0007-device-operations': m0007,
  '0008-fleet-operations': m0008,
  '0009-telemetry': m0009,
  '0010-cards-and-commerce': m0010,
  '0011-content': m0011,
  '0012-device-holder': m0012,
  '0013-document-owner': m0013,
  '0014-account-names-ignore-case': m0014,
  '0015-api-tokens-and-webhooks': m0015,
  '0016-org-public-key': m0016,
  '0017-operation-log-target-name': m0017,
  '0018-abnormal-type-index': m0018,
  '0019-totp': m0019,
  '0020-oidc-identities': m0020,
  '0022-campaign-schedule': m0022,
  '0023-device-timeline': m0023,
  '0024-recordings': m0024,
  '0025-approvals': m0025,
  '0026-dynamic-groups-and-views': m0026,
  '0028-recording-views': m0028,
  '0029-custom-device-fields': m0029,
  '0030-device-secret-pending': m0030,
};
