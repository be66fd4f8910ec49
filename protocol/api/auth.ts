// Login, the account's own session and settings, and the TOTP second factor (platform-core sections 4 and 7,
// issue 23): request schemas written with TypeBox, their types derived, and the answers' shapes: one
// definition for the server and the console.
import { type Static, Type } from 'typebox';
import { Id, OneOf } from './common.ts';

// ---- login and the account's session ----

/**
 * POST /login/userLogin. Every field is optional to the schema: a missing account or password is answered
 * with the spec's own messages ('Account cannot be empty!') by the server, not a schema message.
 */
export const LoginBody = Type.Object({
  username: Type.Optional(Type.String({ maxLength: 64 })),
  /** The verification-code image's id (/login/captcha). */
  id: Type.Optional(Type.String({ maxLength: 64 })),
  /** SHA-256 hex of the typed password. */
  password: Type.Optional(Type.String({ maxLength: 128 })),
  authCode: Type.Optional(Type.String({ maxLength: 16 })),
  /** The authenticator's code or a recovery code, for an account with a second factor (issue 23). */
  totpCode: Type.Optional(Type.String({ maxLength: 32 })),
});
export type LoginBody = Static<typeof LoginBody>;

/** POST /common/modify-language: 1 Chinese, 2 English (platform-core section 4). */
export const ModifyLanguageBody = Type.Object({ languageType: OneOf([1, 2]) }, { additionalProperties: false });
export type ModifyLanguageBody = Static<typeof ModifyLanguageBody>;

/** Answer of /login/captcha. */
export interface CaptchaView {
  readonly enabled: boolean;
  readonly id: string;
  /** data: URL of the code image (a GIF). */
  readonly image: string;
}

/** Answer of /login/userLogin. */
export interface LoginAnswer {
  readonly token: string;
  readonly list: readonly { readonly permissionList: readonly string[] }[];
  readonly roles: readonly string[];
  readonly org: { readonly id: number; readonly name: string };
  readonly id: number;
  readonly avatar: string;
  readonly description: string;
  readonly signalingServer: string;
  readonly streamServer: string;
  /** Its organisation requires two-step verification it has not set up (issue 23): it holds no key until it does. */
  readonly totpSetupRequired?: boolean;
}

/** Answer of /home/getAccountDetail. */
export interface AccountDetail {
  readonly id: number;
  readonly account: string;
  readonly nickname: string;
  readonly roles: readonly string[];
  readonly org: { readonly id: number; readonly name: string };
  readonly permissionList: readonly string[];
  readonly updatePasswordLastTime: number;
  readonly expireTime: number | null;
  readonly languageType: number;
  readonly customerType: number;
}

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
