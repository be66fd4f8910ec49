/** Reminder rules of platform-core section 4, as pure functions of the account and the clock. */

export const DAY_MS = 86_400_000;
/** A password older than this prompts a change. */
export const PASSWORD_MAX_AGE_MS = 30 * DAY_MS;
/** Expiry within this window (or past) shows a warning. */
export const EXPIRY_WARNING_MS = 30 * DAY_MS;
/** The warning shows for 5 s, at most once a day, remembered by a cookie lasting 1 day. */
export const EXPIRY_TOAST_MS = 5_000;
export const EXPIRY_COOKIE = 'expiry-reminded';
export const EXPIRY_COOKIE_DAYS = 1;

/** True when more than 30 days have passed since the last password update. */
export function passwordReminderDue(updatePasswordLastTime: number, now: number): boolean {
  return now - updatePasswordLastTime > PASSWORD_MAX_AGE_MS;
}

/**
 * True when the expiry warning should show: the account is expired or within 30 days of expiry, it is
 * not customer type 1, and it has not been shown today (the cookie is absent).
 */
export function expiryWarningDue(expireTime: number | null, customerType: number, now: number, remindedToday: boolean): boolean {
  if (expireTime === null || customerType === 1 || remindedToday) return false;
  return expireTime - now <= EXPIRY_WARNING_MS;
}

/** The top bar's expiry text: nothing without an expiry; 'expired', 'soon' (within 30 days) or 'later'. */
export type ExpiryTone = 'expired' | 'soon' | 'later';

export function expiryTone(expireTime: number | null, now: number): ExpiryTone | undefined {
  if (expireTime === null) return undefined;
  if (expireTime <= now) return 'expired';
  return expireTime - now <= EXPIRY_WARNING_MS ? 'soon' : 'later';
}
