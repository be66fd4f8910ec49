/** Login field rules of platform-core section 5; each returns an i18n key of the failure, or undefined. */
export type RuleResult = string | undefined;

export function checkAccount(value: string): RuleResult {
  const v = value.trim();
  if (!v) return 'login.accountEmpty';
  return /^[a-zA-Z]\w{3,15}$/.test(v) ? undefined : 'login.accountRule';
}

export function checkPassword(value: string): RuleResult {
  if (!value) return 'login.passwordEmpty';
  return /^\w{4,16}$/.test(value) ? undefined : 'login.passwordRule';
}

export function checkCode(value: string): RuleResult {
  if (!value.trim()) return 'login.codeEmpty';
  return value.trim().length >= 4 ? undefined : 'login.codeRule';
}
