import type { Envelope } from '../../protocol/api/common.ts';
import { englishOf, formatMessage, type MessageKey, type MessageLanguage, type MessageParams, type MessageRef, type PlainMessageKey } from '../../protocol/index.ts';

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

/**
 * The envelope `{code, data, message}` as the server builds it: the contract's (protocol/api/common.ts,
 * whose response schemas serialise it) with the code, key and parameters typed narrower. `message` is in
 * the caller's language (docs/DECISIONS.md, "Errors as keys"); on a failure, `key` is the message's
 * catalogue key (protocol/messages), which the console renders in its own language, and `params` its
 * parameters (a parameter that is itself a message, a field label, is a `{key, params}` object).
 */
export type ApiEnvelope<T> = Omit<Envelope<T>, 'code' | 'key' | 'params'> & {
  readonly code: ApiCodeValue;
  readonly key?: MessageKey;
  readonly params?: MessageParams;
};

/** A successful envelope. */
export function ok<T>(data: T): ApiEnvelope<T> {
  return { code: ApiCode.Success, data, message: 'success' };
}

/**
 * A failure the client shows to the user; thrown by handlers and turned into an envelope. It carries a
 * catalogue key (with parameters where the message has placeholders, built with `msg`), never free text:
 * the envelope's `message` is rendered from it in the caller's language. `Error.message` is the English.
 */
export class ApiError extends Error {
  readonly code: ApiCodeValue;
  readonly ref: MessageRef;
  constructor(code: ApiCodeValue, message: PlainMessageKey | MessageRef) {
    const ref: MessageRef = typeof message === 'string' ? { key: message } : message;
    super(formatMessage('en', ref.key, ref.params));
    this.name = 'ApiError';
    this.code = code;
    this.ref = ref;
  }
}

/** The envelope of a failure: `message` in `lang`, with the key and parameters beside it. */
export function failure(code: ApiCodeValue, ref: MessageRef, lang: MessageLanguage): ApiEnvelope<null> {
  return { code, data: null, message: formatMessage(lang, ref.key, ref.params), key: ref.key, ...(ref.params ? { params: ref.params } : {}) };
}

/** The spec's messages (platform-core section 8) in English, for code and tests that compare the wording. */
export const Message = englishOf({
  PermissionDenied: 'common.permissionDenied',
  VerificationCodeError: 'common.verificationCodeError',
  AccountEmpty: 'common.accountEmpty',
  PasswordEmpty: 'common.passwordEmpty',
  NoPermission: 'common.noPermission',
  Required: 'common.required',
  TooFrequent: 'common.tooFrequent',
});
