// Group control from the monitor centre's wall (issue 22): one live-control input mirrored to every device
// of the group through the real server, each device scaling the picture fractions to its own screen; each
// device is checked on its own (the live-control key, the device in scope) and is one timeline entry.
import { filter, firstValueFrom, lastValueFrom, skipWhile } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import type { ScreenSize } from '../../agent/simulator/identity.ts';
import { simulatedTouches } from '../../agent/simulator/video-source.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import type { GroupControlReply } from '../../protocol/api/device-ops.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { TimelineEntry } from '../../protocol/api/timeline.ts';
import { Command, decodeRequest, fileFromDevice, Result, systemClock } from '../../protocol/index.ts';
import { client, type Client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { loginAs, loginAsAdmin, openConsole, startTestServer, type TestServer } from '../support/server.ts';

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Three screens of different sizes and shapes: a phone, a small phone and a landscape tablet. */
const SCREENS: Record<string, ScreenSize> = {
  'GC-PHONE': { width: 1080, height: 1920 },
  'GC-SMALL': { width: 720, height: 1280 },
  'GC-TABLET': { width: 1920, height: 1200 },
};
const GROUP = Object.keys(SCREENS);
/** A device of another organisation, for the per-device refusal. */
const OTHER = 'GC-OTHER';
/** The refusal of one device, in the caller's language (English here). */
const DENIED = 'Permission denied or Session expire';

describe('group control', () => {
  let ts: TestServer;
  let admin: Client;
  const devices: DeviceSession[] = [];

  beforeAll(async () => {
    ts = await startTestServer();
    admin = client(ts, (await loginAsAdmin(ts)).token);
    for (const sn of [...GROUP, OTHER]) {
      const device = createVirtualDevice({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn,
        enrollKey: ts.server.seeded.enrollKey,
        info: { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.10', networkType: 2 },
        transport: wsTransport(),
        clock: systemClock,
        rebootDownMs: 200,
        screen: SCREENS[sn] ?? { width: 800, height: 1280 },
        telemetry: false,
        // Moved devices are disconnected and log in again under their new organisation: quickly.
        tuning: { backoff: { initialMs: 100, maxMs: 300, jitter: 0 } },
      });
      device.start();
      devices.push(device);
    }
    await Promise.all(devices.map((d) => d.waitLoggedIn()));
  }, 60_000);

  afterAll(async () => {
    for (const d of devices) d.dispose();
    await ts?.stop();
  });

  it('group control of 3 simulated devices delivers the same tap to each (scaled)', async () => {
    const tap = { action: 'tap', x: 0.25, y: 0.75 } as const;
    const reply = await admin.ok<GroupControlReply>('POST', '/device-ops/group-control', { sns: GROUP, input: tap });
    // Each device's screen pixels for the same picture point: a quarter across, three quarters down.
    const expected: Record<string, { x: number; y: number }> = {
      'GC-PHONE': { x: 270, y: 1440 },
      'GC-SMALL': { x: 180, y: 960 },
      'GC-TABLET': { x: 480, y: 900 },
    };
    expect(reply.list).toEqual(GROUP.map((sn) => ({ sn, result: Result.Success, message: '', at: expected[sn] })));
    // What each device received: the tap, at its own scaled coordinates.
    for (const sn of GROUP) expect(simulatedTouches.of(sn).at(-1)).toEqual({ action: 'tap', ...expected[sn] });
    // Each device has its own timeline entry, source group, under the operator's account.
    for (const sn of GROUP) {
      await expect.poll(async () => (await admin.ok<Page<TimelineEntry>>('POST', '/device/timeline', { sn, pageNum: 1, pageSize: 10 })).list.map((e) => [e.source, e.msgId, e.result, e.account])).toEqual([['group', Command.RemoteControl, Result.Success, 'admin']]);
    }
  });

  it('the wall\'s thumbnails: one console takes screenshots of several devices at once, each at the asked width and its screen\'s shape', async () => {
    const engine = await openConsole(ts.server.url, await loginAsAdmin(ts));
    try {
      const shots = await Promise.all(GROUP.map((sn) => lastValueFrom(fileFromDevice(engine, { sn, msgId: Command.Screenshot, data: { maxWidth: 160 }, timeoutMs: 10_000 }))));
      const sizes = shots.map((s) => (s.kind === 'done' && s.file ? pngSize(s.file.bytes) : undefined));
      // 160 wide, as tall as each screen's shape makes it (1080x1920, 720x1280, 1920x1200).
      expect(sizes).toEqual([
        { width: 160, height: 284 },
        { width: 160, height: 284 },
        { width: 160, height: 100 },
      ]);
    } finally {
      engine.stop();
    }
  });

  it('a swipe, a key and text reach every device of the group; malformed input is refused as a whole', async () => {
    const swipe = await admin.ok<GroupControlReply>('POST', '/device-ops/group-control', { sns: GROUP, input: { action: 'swipe', x1: 0.5, y1: 0.9, x2: 0.5, y2: 0.1, durationMs: 300 } });
    expect(swipe.list.map((r) => [r.sn, r.result, r.at])).toEqual([
      ['GC-PHONE', Result.Success, { x: 540, y: 1728 }],
      ['GC-SMALL', Result.Success, { x: 360, y: 1152 }],
      ['GC-TABLET', Result.Success, { x: 960, y: 1080 }],
    ]);
    for (const input of [{ action: 'key', key: 'home' }, { action: 'text', text: '你好 group' }]) {
      const r = await admin.ok<GroupControlReply>('POST', '/device-ops/group-control', { sns: GROUP, input });
      expect(r.list.map((o) => [o.sn, o.result, o.at])).toEqual(GROUP.map((sn) => [sn, Result.Success, null]));
    }
    const bad = await admin.call('POST', '/device-ops/group-control', { sns: GROUP, input: { action: 'tap', x: 2, y: 0.5 } });
    expect(bad.code).not.toBe(20000);
    const clipboard = await admin.call('POST', '/device-ops/group-control', { sns: GROUP, input: { action: 'clipboard' } });
    expect(clipboard.code).not.toBe(20000);
  });

  it('GROUP-1 other consoles watching a device see it under group control by the account, until the session ends or the console goes away', async () => {
    const watchRole = await createRole(admin, 'gc-watch', ['device_list']);
    await createAccount(admin, 'gcwatch', 'Watch_pass_1', watchRole);
    const operator = await openConsole(ts.server.url, await loginAsAdmin(ts));
    const watcher = await openConsole(ts.server.url, await loginAs(ts, 'gcwatch', 'Watch_pass_1'));
    const engines = [operator, watcher];
    try {
      const heard: (readonly [string | undefined, boolean, string])[] = [];
      const sub = watcher.messages$.pipe(filter((e) => e.msgId === Command.DeviceGroupControl)).subscribe((e) => {
        const d = decodeRequest(Command.DeviceGroupControl, e.data)?.data;
        if (d) heard.push([e.sn, d.active, d.by]);
      });
      for (const sn of GROUP) expect((await lastValueFrom(watcher.request(Command.DeviceWatch, { sn, data: { watch: true } }))).reply.result).toBe(Result.Success);

      // The operator's group session takes two of the three devices: the watcher hears those two, by account.
      const session = (sns: readonly string[]) => lastValueFrom(operator.request(Command.GroupControlSession, { data: { sns } }));
      expect((await session(['GC-PHONE', 'GC-SMALL'])).reply.result).toBe(Result.Success);
      await expect.poll(() => [...heard].sort()).toEqual([
        ['GC-PHONE', true, 'admin'],
        ['GC-SMALL', true, 'admin'],
      ]);
      // A console that starts watching later hears the session already under way, for that device only.
      const late = await openConsole(ts.server.url, await loginAs(ts, 'gcwatch', 'Watch_pass_1'));
      engines.push(late);
      const lateHeard = firstValueFrom(late.messages$.pipe(filter((e) => e.msgId === Command.DeviceGroupControl)));
      expect((await lastValueFrom(late.request(Command.DeviceWatch, { sn: 'GC-SMALL', data: { watch: true } }))).reply.result).toBe(Result.Success);
      expect(await lateHeard).toMatchObject({ sn: 'GC-SMALL', data: { active: true, by: 'admin' } });

      // The session changes to one device, then ends: each device that left is heard leaving.
      heard.length = 0;
      await session(['GC-SMALL']);
      await expect.poll(() => heard).toEqual([['GC-PHONE', false, 'admin']]);
      await session([]);
      await expect.poll(() => heard).toEqual([
        ['GC-PHONE', false, 'admin'],
        ['GC-SMALL', false, 'admin'],
      ]);

      // A console going away ends its session: the watcher hears the end.
      heard.length = 0;
      await session(['GC-TABLET']);
      await expect.poll(() => heard).toEqual([['GC-TABLET', true, 'admin']]);
      operator.stop();
      await expect.poll(() => heard).toEqual([
        ['GC-TABLET', true, 'admin'],
        ['GC-TABLET', false, 'admin'],
      ]);
      sub.unsubscribe();
    } finally {
      for (const e of engines) e.stop();
    }
  });

  it('a device outside the caller\'s organisations is refused alone, and without the live-control key every device is', async () => {
    // A branch organisation holds two of the group; its operator has the live-control key.
    const branchId = await createOrg(admin, { name: 'Group control branch', account: 'gcbranch', password: 'Branch_pass_1' });
    // A moved device is disconnected and logs in again: wait for both to be back.
    const back = devices.slice(0, 2).map((d) => firstValueFrom(d.loggedIn$.pipe(skipWhile((v) => v), filter((v) => v))));
    await admin.ok('POST', '/device/allocate', { sns: ['GC-PHONE', 'GC-SMALL'], orgId: branchId });
    await Promise.all(back);
    const branch = client(ts, (await loginAs(ts, 'gcbranch', 'Branch_pass_1')).token);
    const before = simulatedTouches.of('GC-TABLET').length;
    const reply = await branch.ok<GroupControlReply>('POST', '/device-ops/group-control', { sns: [...GROUP, OTHER], input: { action: 'tap', x: 0.5, y: 0.5 } });
    expect(reply.list.map((r) => [r.sn, r.result, r.message])).toEqual([
      ['GC-PHONE', Result.Success, ''],
      ['GC-SMALL', Result.Success, ''],
      ['GC-TABLET', Result.Fail, DENIED],
      [OTHER, Result.Fail, DENIED],
    ]);
    expect(simulatedTouches.of('GC-PHONE').at(-1)).toEqual({ action: 'tap', x: 540, y: 960 });
    // The refused device was not touched.
    expect(simulatedTouches.of('GC-TABLET')).toHaveLength(before);

    const viewer = await createRole(admin, 'gc-viewer', ['device_list', 'device_live_view']);
    await createAccount(admin, 'gcviewer', 'Viewer_pass_1', viewer);
    const noKey = client(ts, (await loginAs(ts, 'gcviewer', 'Viewer_pass_1')).token);
    const refused = await noKey.ok<GroupControlReply>('POST', '/device-ops/group-control', { sns: GROUP, input: { action: 'tap', x: 0.5, y: 0.5 } });
    expect(refused.list.map((r) => [r.sn, r.result, r.message])).toEqual(GROUP.map((sn) => [sn, Result.Fail, DENIED]));
  });
});
