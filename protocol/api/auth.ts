// Login, the account's own session and settings, and the TOTP second factor (platform-core sections 4 and 7,
// issue 23): request schemas written with TypeBox, their types derived, and the answers' shapes: one
// definition for the server and the console.
import { type Static, Type } from 'typebox';
import { Id } from './common.ts';

// ---- TOTP second factor ----

/** POST /totp/enable and /totp/disable: the authenticator's code (or a recovery code to disable). */
export const TotpCodeBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }) }, { additionalProperties: false });
export type TotpCodeBody = Static<typeof TotpCodeBody>;

/** POST /org/totp-policy: whether an organisation requires a second factor of its accounts. */
export const TotpPolicyBody = Type.Object({ orgId: Id, required: Type.Boolean() }, { additionalProperties: false });
export type TotpPolicyBody = Static<typeof TotpPolicyBody>;

/** Answer of /totp/status. */
export interface TotpStatus {
  readonly enabled: boolean;
  readonly pending: boolean;
  readonly recoveryCodesLeft: number;
  /** The organisation requires a second factor. */
  readonly required: boolean;
}

/** Answer of /totp/setup: the secret to enter, and its otpauth:// URI for a QR code. */
export interface TotpSetup {
  readonly secret: string;
  readonly uri: string;
}

/** Answer of /totp/enable: recovery codes, shown once. */
export interface TotpEnabled {
  readonly recoveryCodes: string[];
}
