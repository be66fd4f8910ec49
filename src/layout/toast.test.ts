import { afterEach, describe, expect, it } from 'vitest';
import { notificationsStore } from '@mantine/notifications';
import { notifications } from './toast.ts';

const shown = () => notificationsStore.getState().notifications.map((n) => n.message);

describe('toast', () => {
  afterEach(() => notifications.clean());

  it('shows the same message once however often it is shown', () => {
    for (let i = 0; i < 5; i++) notifications.show({ color: 'red', message: 'Wrong password' });
    expect(shown()).toEqual(['Wrong password']);
  });

  it('keeps different messages apart', () => {
    notifications.show({ color: 'red', message: 'a' });
    notifications.show({ color: 'red', message: 'b' });
    notifications.show({ color: 'red', message: 'a' });
    expect([...shown()].sort()).toEqual(['a', 'b']);
  });

  it('lets the newest important message (lock-out) replace the older ones', () => {
    notifications.show({ color: 'red', message: 'Wrong password' });
    notifications.show({ color: 'yellow', message: 'Expires soon' });
    notifications.show({ color: 'red', message: 'Account locked', important: true });
    expect(shown()).toEqual(['Account locked']);
  });
});
