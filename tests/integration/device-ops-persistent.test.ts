import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, fileFromDevice, lastFileEvent, ProtocolEngine, Result, systemClock } from '../../protocol/index.ts';
import { client, type Client } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

interface Held {
  readonly id: number;
  readonly state: string;
  readonly result: number | null;
  readonly msgId: number;
  readonly reply: unknown;
}

for (const target of targets) {
  describe.skipIf(!target.available)(`persistent commands wait for offline devices (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let device: DeviceSession;
    let consoleEngine: ProtocolEngine;

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      const login = await loginAsAdmin(ts);
      admin = client(ts, login.token);
      consoleEngine = new ProtocolEngine({
        url: () => `${ts.server.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
        transport: wsTransport(),
      });
      consoleEngine.start();
      device = createVirtualDevice({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn: 'HOLD-1',
        enrollKey: ts.server.seeded.enrollKey,
        info: { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.10', networkType: 2 },
        transport: wsTransport(),
        clock: systemClock,
        rebootDownMs: 500,
      });
      device.start();
      await device.waitLoggedIn();
      await firstValueFrom(consoleEngine.connection$.pipe(filter((s) => s.status === 'open')));
    });

    afterAll(async () => {
      device?.dispose();
      consoleEngine?.stop();
      await ts?.stop();
    });

    const pending = async () => (await admin.ok<{ list: Held[] }>('GET', '/device-ops/pending?sn=HOLD-1')).list;
    const offline = () =>
      firstValueFrom(consoleEngine.messages$.pipe(filter((e) => e.msgId === Command.DevicePresence && e.sn === 'HOLD-1' && (e.data as { onlineState: number }).onlineState === 2)));

    it('delivers a command at once to an online device', async () => {
      const res = await admin.ok<{ delivered: boolean; result: number }>('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.PushText, data: { text: 'now' }, ttlSeconds: 60 });
      expect(res).toMatchObject({ delivered: true, result: Result.Success });
    });

    it('holds commands for an offline device and delivers each exactly once when it returns', async () => {
      const gone = offline();
      device.stop();
      await gone;
      // Without a time-to-live the offline answer is immediate, as on the socket.
      expect(await admin.ok('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.PushText, data: { text: 'x' } })).toMatchObject({ delivered: false, result: Result.DeviceOffline });
      const first = await admin.ok<{ delivered: boolean; pending: Held }>('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.PushText, data: { text: 'held message' }, ttlSeconds: 600 });
      expect(first).toMatchObject({ delivered: false, pending: { state: 'waiting' } });
      await admin.ok('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.Whitelist, data: { action: 'set', packages: ['com.held.app'] }, ttlSeconds: 600 });
      expect((await pending()).filter((h) => h.state === 'waiting')).toHaveLength(2);

      // Consoles hear each held command's end (command 196610).
      const finished = firstValueFrom(consoleEngine.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone && e.sn === 'HOLD-1'), take(2), toArray()));
      device.start();
      await device.waitLoggedIn();
      expect((await finished).map((e) => (e.data as Held).state)).toEqual(['done', 'done']);
      const rows = await pending();
      expect(rows.map((h) => [h.msgId, h.state, h.result])).toEqual([
        [Command.Whitelist, 'done', Result.Success],
        [Command.PushText, 'done', Result.Success],
      ]);
      // The device acted on each once: the message is in its log once, the whitelist holds the package.
      const wl = (await lastValueFrom(consoleEngine.request(Command.Whitelist, { sn: 'HOLD-1', data: { action: 'get' } }))).reply;
      expect(wl.data).toMatchObject({ packages: ['com.held.app'] });

      // A second return delivers nothing again.
      const goneAgain = offline();
      device.stop();
      await goneAgain;
      device.start();
      await device.waitLoggedIn();
      const again = await pending();
      expect(again.filter((h) => h.state === 'done')).toHaveLength(2);
      expect(again).toHaveLength(2);
      const log = await lastFileEvent(fileFromDevice(consoleEngine, { sn: 'HOLD-1', msgId: Command.GrabLog }));
      expect(new TextDecoder().decode(log.file?.bytes).split('held message').length - 1).toBe(1);
    });

    it('expires a held command whose time-to-live passes before the device returns', async () => {
      const gone = offline();
      device.stop();
      await gone;
      await admin.ok('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.ClearCache, data: {}, ttlSeconds: 1 });
      // Age the row past its time-to-live in the database rather than sleeping.
      await ts.server.db.updateTable('device_operations').set({ expires_at: Date.now() - 1 }).where('msg_id', '=', Command.ClearCache).execute();
      const expired = firstValueFrom(consoleEngine.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone && (e.data as Held).msgId === Command.ClearCache)));
      device.start();
      await device.waitLoggedIn();
      expect((await expired).data).toMatchObject({ state: 'expired' });
      const row = (await pending()).find((h) => h.msgId === Command.ClearCache);
      expect(row).toMatchObject({ state: 'expired', result: null });
    });

    it('refuses flow commands, unknown devices and callers outside the device', async () => {
      expect((await admin.call('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.Shell, data: { op: 'open' } })).code).toBe(40001);
      expect((await admin.call('POST', '/device-ops/command', { sn: 'NOPE', msgId: Command.PushText, data: { text: 'x' } })).message).toBe('Permission denied or Session expire');
      expect((await admin.call('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: 'x' })).code).not.toBe(20000);
    });
  });
}
