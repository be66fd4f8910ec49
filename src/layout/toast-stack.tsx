import { Notifications } from '@mantine/notifications';

/**
 * Mantine's notification stack, a chunk of its own (with its transitions and scroll-bar handling, about
 * 8 kB gzip): main.tsx mounts it with the first toast, so a page that shows none never loads it.
 */
export function ToastStack() {
  return <Notifications position="top-center" />;
}
