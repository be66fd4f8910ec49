import { proxy } from 'valtio';
import { noticeApi } from '../api/notices.ts';

/**
 * Unread-notice polling interval. The spec says the count is polled but not how often: a minute keeps a
 * fleet of open consoles cheap for the server while a new notice still shows within the minute.
 */
export const NOTICE_POLL_MS = 60_000;

/** The bell's unread count (platform-core section 3, application UI state). */
export const notices = proxy({ unread: 0 });

let timer: ReturnType<typeof setInterval> | undefined;

/** Fetches the unread count now. */
export async function refreshUnread(): Promise<void> {
  try {
    notices.unread = await noticeApi.unreadCount();
  } catch {
    // keep the last count; the next poll tries again
  }
}

/** Starts polling after login; idempotent. */
export function startUnreadPolling(): void {
  void refreshUnread();
  timer ??= setInterval(() => void refreshUnread(), NOTICE_POLL_MS);
}

export function stopUnreadPolling(): void {
  if (timer !== undefined) clearInterval(timer);
  timer = undefined;
  notices.unread = 0;
}
