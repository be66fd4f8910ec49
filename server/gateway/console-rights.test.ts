import { describe, expect, it } from 'vitest';
import { CloseCode, Command } from '../../protocol/index.ts';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import type { LoadedCaller } from '../accounts/caller.ts';
import type { Session } from '../auth/sessions.ts';
import { DangerousCommandGuard, TokenBucket } from './command-limits.ts';
import { ConsoleRights, type RightsHolder, touches } from './console-rights.ts';

const session: Session = { tokenHash: 'h1', accountId: 7, expiresAt: 10_000 };

function caller(permissions: string[], scope: number[] = [5, 6], over: Partial<LoadedCaller> = {}): LoadedCaller {
  return {
    session,
    accountId: 7,
    account: 'a',
    nickname: 'a',
    orgId: 5,
    orgName: 'o',
    roleId: 3,
    role: 'r',
    orgPath: [5, 1],
    permissions: new Set(permissions),
    scope: new Set(scope),
    scopeCoversAll: false,
    updatePasswordLastTime: 0,
    expireTime: null,
    language: 2,
    customerType: 1,
    ...over,
  };
}

/** A socket stand-in that records what it was told. */
function holder(): RightsHolder & { closed: number[]; narrowings: number } {
  const h = {
    closed: [] as number[],
    narrowings: 0,
    close: (code: number) => void h.closed.push(code),
    narrowed: () => void h.narrowings++,
  };
  return h;
}

/** A loader whose answers the test releases one by one, as a slow database would. */
function slowLoader() {
  const pending: ((c: LoadedCaller | undefined) => void)[] = [];
  return {
    pending,
    load: () => new Promise<LoadedCaller | undefined>((resolve) => pending.push(resolve)),
    /** Answers the oldest load, once one has been asked for. */
    async answer(c: LoadedCaller | undefined): Promise<void> {
      while (pending.length === 0) await new Promise((r) => setImmediate(r));
      pending.shift()?.(c);
    },
  };
}

const noLog = { warn: () => undefined };

describe('which changes touch a caller', () => {
  const c = caller(['device_reboot']);
  it('its account, its role, an organisation in its scope or on its path to the root; nothing else', () => {
    expect(touches({ accounts: [7] }, c)).toBe(true);
    expect(touches({ accounts: [8] }, c)).toBe(false);
    expect(touches({ roles: [3] }, c)).toBe(true);
    expect(touches({ roles: [4] }, c)).toBe(false);
    expect(touches({ orgs: [6] }, c)).toBe(true);
    expect(touches({ orgs: [1] }, c)).toBe(true);
    expect(touches({ orgs: [9] }, c)).toBe(false);
    expect(touches({ all: true }, c)).toBe(true);
  });
});

describe('ConsoleRights', () => {
  it('answers from the cache until a change touches the session, then only after a reload that began after the change', async () => {
    const clock = new FakeClock(0);
    const loader = slowLoader();
    const rights = new ConsoleRights({ load: loader.load, clock, commandRate: 0, commandBurst: 0, log: noLog });
    const opening = rights.open(session);
    await loader.answer(caller(['device_reboot']));
    const opened = await opening;
    if (!opened) throw new Error('not opened');
    const socket = holder();
    expect(rights.attach(opened, socket)).toBe(opened);
    expect(rights.check(opened)).toBe(opened.caller);

    rights.invalidate({ roles: [3] });
    const waiting = rights.check(opened);
    expect(waiting).toBeInstanceOf(Promise);
    // A second change while the first reload is reading: that read may predate it, so it does not count.
    rights.invalidate({ accounts: [7] });
    await loader.answer(caller(['device_reboot']));
    expect(opened.fresh).toBe(false);
    await loader.answer(caller([]));
    const reloaded = await waiting;
    expect(reloaded?.permissions.has('device_reboot')).toBe(false);
    expect(rights.check(opened)).toBe(reloaded);
    expect(socket.narrowings).toBe(1);
    expect(socket.closed).toEqual([]);
  });

  it('ignores changes that do not touch the session', async () => {
    const rights = new ConsoleRights({ load: async () => caller(['x']), clock: new FakeClock(0), commandRate: 0, commandBurst: 0, log: noLog });
    const opened = await rights.open(session);
    if (!opened) throw new Error('not opened');
    rights.attach(opened, holder());
    rights.invalidate({ accounts: [99], roles: [99], orgs: [99] });
    expect(rights.check(opened)).toBe(opened.caller);
  });

  it('closes the sockets with 4002 when the reload finds no caller (account gone, organisation frozen, session ended)', async () => {
    let answer: LoadedCaller | undefined = caller(['x']);
    const rights = new ConsoleRights({ load: async () => answer, clock: new FakeClock(0), commandRate: 0, commandBurst: 0, log: noLog });
    const opened = await rights.open(session);
    if (!opened) throw new Error('not opened');
    const socket = holder();
    rights.attach(opened, socket);
    answer = undefined;
    rights.invalidate({ orgs: [1] });
    expect(await rights.check(opened)).toBeUndefined();
    expect(socket.closed).toEqual([CloseCode.SessionEnded]);
    expect(rights.size).toBe(0);
  });

  it('checks expiry at every command, even when no timer fired', async () => {
    // A clock whose timers never fire: only the per-command check can notice.
    const clock = new FakeClock(0);
    const still = { now: () => clock.now(), setTimeout: () => 0, clearTimeout: () => undefined };
    const rights = new ConsoleRights({ load: async () => caller(['x']), clock: still, commandRate: 0, commandBurst: 0, log: noLog });
    const opened = await rights.open(session);
    if (!opened) throw new Error('not opened');
    const socket = holder();
    rights.attach(opened, socket);
    clock.advance(session.expiresAt - 1);
    expect(rights.check(opened)).toBe(opened.caller);
    clock.advance(1);
    expect(rights.check(opened)).toBeUndefined();
    expect(socket.closed).toEqual([CloseCode.SessionEnded]);
  });

  it('shares one copy between the sockets of a session and forgets it with the last', async () => {
    let loads = 0;
    const rights = new ConsoleRights({ load: async () => (loads++, caller(['x'])), clock: new FakeClock(0), commandRate: 0, commandBurst: 0, log: noLog });
    const a = await rights.open(session);
    if (!a) throw new Error('not opened');
    const ha = holder();
    rights.attach(a, ha);
    const b = await rights.open(session);
    expect(b).toBe(a);
    expect(loads).toBe(1);
    const hb = holder();
    if (b) rights.attach(b, hb);
    rights.detach(a, ha);
    expect(rights.size).toBe(1);
    rights.detach(a, hb);
    expect(rights.size).toBe(0);
  });

  it('CONN-1 forgets the rights of a socket refused after opening them (a wrong orgId), unless another socket of the session holds them', async () => {
    const clock = new FakeClock(0);
    const rights = new ConsoleRights({ load: async () => caller(['x']), clock, commandRate: 0, commandBurst: 0, log: noLog });
    const refused = await rights.open(session);
    if (!refused) throw new Error('not opened');
    rights.release(refused);
    expect(rights.size).toBe(0);
    // Nor is its expiry timer left behind.
    expect(clock.pendingTimers).toBe(0);
    const held = await rights.open(session);
    if (!held) throw new Error('not opened');
    rights.attach(held, holder());
    const again = await rights.open(session);
    if (!again) throw new Error('not opened');
    rights.release(again);
    expect(rights.size).toBe(1);
  });
});

describe('command limits', () => {
  it('a token bucket gives its burst at once, then its rate', () => {
    const bucket = new TokenBucket(2, 3, 0);
    expect([1, 2, 3, 4].map(() => bucket.take(0))).toEqual([true, true, true, false]);
    expect(bucket.take(499)).toBe(false);
    expect(bucket.take(500)).toBe(true);
    expect(bucket.take(500)).toBe(false);
    // Refills up to the burst, never past it.
    expect([1, 2, 3, 4].map(() => bucket.take(60_000))).toEqual([true, true, true, false]);
  });

  it('lets the same dangerous command reach a device once per gap; other commands, devices and apps are free', () => {
    const guard = new DangerousCommandGuard(1_000);
    expect(guard.allow('A', Command.Reboot, {}, 0)).toBe(true);
    expect(guard.allow('A', Command.Reboot, {}, 999)).toBe(false);
    expect(guard.allow('B', Command.Reboot, {}, 999)).toBe(true);
    expect(guard.allow('A', Command.FactoryReset, {}, 999)).toBe(true);
    expect(guard.allow('A', Command.BaseInfo, {}, 999)).toBe(true);
    expect(guard.allow('A', Command.BaseInfo, {}, 999)).toBe(true);
    expect(guard.allow('A', Command.ClearData, { packageName: 'p1' }, 999)).toBe(true);
    expect(guard.allow('A', Command.ClearData, { packageName: 'p2' }, 999)).toBe(true);
    expect(guard.allow('A', Command.ClearData, { packageName: 'p1' }, 1_000)).toBe(false);
    expect(guard.allow('A', Command.Reboot, {}, 1_000)).toBe(true);
  });
});
