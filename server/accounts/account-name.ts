import { ApiCode, ApiError } from '../http/envelope.ts';
import { englishOf } from '../../protocol/index.ts';

/** Login account rule (platform-core section 5): a letter, then 3 to 15 word characters. */
export const ACCOUNT_PATTERN = /^[a-zA-Z]\w{3,15}$/;

/** Refusals about account names, shared by organisation and admin-account creation. */
export const AccountMessage = englishOf({
  Taken: 'account.taken',
  Rule: 'account.rule',
});

/** A new account name, trimmed and held to the login rule (platform-core section 5). */
export function newAccountName(raw: string): string {
  const account = raw.trim();
  if (!account) throw new ApiError(ApiCode.BadRequest, 'common.accountEmpty');
  if (!ACCOUNT_PATTERN.test(account)) throw new ApiError(ApiCode.BadRequest, 'account.rule');
  return account;
}
