import { notifications } from '../layout/toast.ts';
import { proxy } from 'valtio';
import { formatDateTime } from '../format/date.ts';
import { i18next } from '../i18n/index.ts';
import { readCookie, writeCookie } from './cookies.ts';
import { EXPIRY_COOKIE, EXPIRY_COOKIE_DAYS, EXPIRY_TOAST_MS, expiryWarningDue, passwordReminderDue } from './reminders.ts';
import type { SessionUser } from './session.ts';

/** Whether the 30-day password reminder dialog is showing. */
export const reminder = proxy({ passwordDue: false });

export function dismissPasswordReminder(): void {
  reminder.passwordDue = false;
}

/** Runs the login reminders once the user is known: the password dialog and the expiry warning. */
export function remind(user: SessionUser, now = Date.now()): void {
  reminder.passwordDue = passwordReminderDue(user.updatePasswordLastTime, now);
  if (expiryWarningDue(user.expireTime, user.customerType, now, readCookie(EXPIRY_COOKIE) !== undefined)) {
    writeCookie(EXPIRY_COOKIE, '1', EXPIRY_COOKIE_DAYS);
    notifications.show({ color: 'yellow', message: i18next.t('reminder.expiry', { date: formatDateTime(user.expireTime) }), autoClose: EXPIRY_TOAST_MS });
  }
}
