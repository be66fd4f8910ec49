import { afterEach, describe, expect, it, vi } from 'vitest';

// The console's modules read cookies as they load; Node has no document (the unit project runs in Node).
vi.hoisted(() => {
  Object.assign(globalThis, { document: { cookie: '', documentElement: {}, title: '' } });
});
import { notificationsStore } from '@mantine/notifications';
import { request } from '../api/request.ts';
import { notifications } from './toast.ts';

const shown = () => notificationsStore.getState().notifications.map((n) => n.message);

/** Answers every call with this failure envelope. */
function failWith(envelope: Record<string, unknown>) {
  vi.stubGlobal('fetch', async () => new Response(JSON.stringify(envelope), { headers: { 'Content-Type': 'application/json' } }));
}

describe('request failures as toasts', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    notifications.clean();
  });

  it('shows five identical login failures once, and the lock-out alone after them', async () => {
    failWith({ code: 60204, message: 'Account or password is incorrect' });
    for (let i = 0; i < 5; i++) await expect(request({ method: 'POST', url: '/user/login', data: {} })).rejects.toThrow();
    expect(shown()).toHaveLength(1);
    failWith({ code: 60204, key: 'auth.locked', params: { minutes: 15 }, message: 'locked' });
    await expect(request({ method: 'POST', url: '/user/login', data: {} })).rejects.toThrow();
    expect(shown()).toHaveLength(1);
    expect(String(shown()[0])).toMatch(/15/);
  });
});
