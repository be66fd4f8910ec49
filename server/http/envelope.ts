/**
 * Response codes of the HTTP envelope `{code, data, message}`. 20000 and 3 are the spec's; the others
 * are ours, in the same style, and listed in the OpenAPI document.
 */
export const ApiCode = {
  Success: 20000,
  /** Login expired or missing: the console logs out and reloads (platform-core section 8). */
  LoginExpired: 3,
  BadRequest: 40001,
  LoginFailed: 40002,
  Forbidden: 40003,
  NotFound: 40004,
  TooFrequent: 40029,
  Internal: 50000,
} as const;
export type ApiCodeValue = (typeof ApiCode)[keyof typeof ApiCode];

export interface ApiEnvelope<T> {
  readonly code: ApiCodeValue;
  readonly data: T | null;
  readonly message: string;
}

/** A successful envelope. */
export function ok<T>(data: T): ApiEnvelope<T> {
  return { code: ApiCode.Success, data, message: 'success' };
}

/** A failure the client shows to the user; thrown by handlers and turned into an envelope. */
export class ApiError extends Error {
  readonly code: ApiCodeValue;
  constructor(code: ApiCodeValue, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

/** The spec's messages (platform-core section 8), one source for server and tests. */
export const Message = {
  PermissionDenied: 'Permission denied or Session expire',
  VerificationCodeError: 'Verification Code Error!',
  AccountEmpty: 'Account cannot be empty!',
  PasswordEmpty: 'Password cannot be empty!',
  NoPermission: 'No permission available!',
  Required: 'This item cannot be empty!',
  TooFrequent: 'You click too frequently！',
} as const;
