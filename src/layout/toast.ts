import { notifications as mantine, notificationsStore, type NotificationData } from '@mantine/notifications';

/**
 * The console's one way to show a toast. Mantine stacks every `show` call, so a failure repeated
 * five times (five wrong passwords, a retried request) piled five identical toasts over the login
 * form. Here a toast's id is derived from its colour and text: showing the same message again while it
 * is on screen refreshes that one toast instead of adding another (Mantine ignores a `show` whose id is
 * already present, so the old one is hidden first to restart its auto-close timer).
 */
export interface ToastData extends NotificationData {
  /** The newest important message (e.g. the account lock-out) replaces every toast shown before it. */
  readonly important?: boolean;
}

function toastId(n: NotificationData): string | undefined {
  if (n.id) return n.id;
  return typeof n.message === 'string' ? `toast:${n.color ?? ''}:${n.message}` : undefined;
}

function isShown(id: string): boolean {
  const state = notificationsStore.getState();
  return [...state.notifications, ...state.queue].some((n) => n.id === id);
}

export function showToast({ important, ...data }: ToastData): string {
  if (important) mantine.clean();
  const id = toastId(data);
  if (id && isShown(id)) mantine.hide(id);
  return mantine.show(id ? { ...data, id } : data);
}

/** Drop-in for Mantine's `notifications`, with `show` deduplicating as above. */
export const notifications = { ...mantine, show: showToast } as const;
