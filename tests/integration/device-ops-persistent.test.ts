import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, type Envelope, fileFromDevice, lastFileEvent, ProtocolEngine, Result, systemClock } from '../../protocol/index.ts';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';
import { clusterServicesAvailable, TEST_NATS_URL } from '../support/cluster.ts';
import { client, type Client, wipesWithoutApproval } from '../support/console-api.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { loginAsAdmin, openAdminConsole, startTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

const targets = await dbTargets();
const clusterAvailable = await clusterServicesAvailable('held commands across nodes test');

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
      // Clear data is held and delivered at once here (its four-eyes approval is approvals.test.ts's).
      await wipesWithoutApproval(admin, login.orgId);
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

    it('DOPS-6 delivers a command at once to an online device', async () => {
      const res = await admin.ok<{ delivered: boolean; result: number }>('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.PushText, data: { text: 'now' }, ttlSeconds: 60 });
      expect(res).toMatchObject({ delivered: true, result: Result.Success });
    });

    it('DOPS-6 holds commands for an offline device and delivers each exactly once when it returns, announcing each end', async () => {
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

    it('DOPS-6 a command past its time-to-live when the device returns is expired, not sent', async () => {
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

    it('DOPS-6 announces the expiry of a 1 s time-to-live by itself, with the device still away and nobody asking', async () => {
      const gone = offline();
      device.stop();
      await gone;
      const expired = firstValueFrom(consoleEngine.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone && (e.data as Held).msgId === Command.ClearData)));
      const held = await admin.ok<{ pending: Held & { expiresAt: number } }>('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.ClearData, data: {}, ttlSeconds: 1 });
      expect(held.pending.state).toBe('waiting');
      // Waits for the announcement itself: no login and no listing, which used to be the only sweeps.
      const announced = (await expired).data as Held & { expiresAt: number; finishedAt: number };
      expect(announced).toMatchObject({ id: held.pending.id, state: 'expired', result: null });
      expect(announced.finishedAt).toBeGreaterThanOrEqual(held.pending.expiresAt);
      device.start();
      await device.waitLoggedIn();
    });

    it('DOPS-6 a held command whose device drops before answering ends done with result 5, and is never sent again', async () => {
      const seen: string[] = [];
      let dropOnNext = true;
      const flaky = new DeviceSession({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn: 'HOLD-2',
        enrollKey: ts.server.seeded.enrollKey,
        info: () => ({ model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '1', networkType: 2 }),
        handlers: new Map([
          [
            Command.PushText,
            async (req: Envelope, session: DeviceSession) => {
              seen.push((req.data as { text: string }).text);
              if (!dropOnNext) return { result: Result.Success, data: { message: 'shown' } };
              // Acts, then loses its connection before it can answer.
              dropOnNext = false;
              session.stop();
              return new Promise<never>(() => undefined);
            },
          ],
        ]),
        transport: wsTransport(),
        clock: systemClock,
      });
      const presence = (state: number) => firstValueFrom(consoleEngine.messages$.pipe(filter((e) => e.msgId === Command.DevicePresence && e.sn === 'HOLD-2' && (e.data as { onlineState: number }).onlineState === state)));
      const ends = (n: number) => firstValueFrom(consoleEngine.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone && e.sn === 'HOLD-2'), take(n), toArray()));
      try {
        flaky.start();
        await flaky.waitLoggedIn();
        let gone = presence(2);
        flaky.stop();
        await gone;
        const first = await admin.ok<{ pending: Held }>('POST', '/device-ops/command', { sn: 'HOLD-2', msgId: Command.PushText, data: { text: 'first' }, ttlSeconds: 600 });
        const lost = ends(1);
        gone = presence(2);
        flaky.start();
        expect((await lost)[0]?.data).toMatchObject({ id: first.pending.id, state: 'done', result: Result.DeviceOffline });
        await gone;
        // Back again with a second held command: only that one is sent, the first is not repeated.
        const second = await admin.ok<{ pending: Held }>('POST', '/device-ops/command', { sn: 'HOLD-2', msgId: Command.PushText, data: { text: 'second' }, ttlSeconds: 600 });
        const answered = ends(1);
        flaky.start();
        expect((await answered)[0]?.data).toMatchObject({ id: second.pending.id, state: 'done', result: Result.Success });
        expect(seen).toEqual(['first', 'second']);
        const rows = (await admin.ok<{ list: Held[] }>('GET', '/device-ops/pending?sn=HOLD-2')).list;
        expect(rows.map((h) => [h.id, h.state, h.result])).toEqual([
          [second.pending.id, 'done', Result.Success],
          [first.pending.id, 'done', Result.DeviceOffline],
        ]);
      } finally {
        flaky.dispose();
      }
    });

    it('DOPS-6 refuses flow commands, unknown devices and callers outside the device', async () => {
      expect((await admin.call('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: Command.Shell, data: { op: 'open' } })).code).toBe(40001);
      expect((await admin.call('POST', '/device-ops/command', { sn: 'NOPE', msgId: Command.PushText, data: { text: 'x' } })).message).toBe('Permission denied or Session expire');
      expect((await admin.call('POST', '/device-ops/command', { sn: 'HOLD-1', msgId: 'x' })).code).not.toBe(20000);
    });
  });
}

describe.skipIf(!clusterAvailable)('held commands across two nodes', () => {
  const nodes: RunningServer[] = [];
  const dirs: string[] = [];
  let dropSchema: (() => Promise<void>) | undefined;

  afterAll(async () => {
    for (const node of nodes) await node.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('DOPS-6 a console on node B hears the expiry of a command held through node A', async () => {
    const schema = await freshPgSchema();
    dropSchema = schema.drop;
    for (let i = 0; i < 2; i++) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'held-node-'));
      dirs.push(dataDir);
      // The schema name doubles as the bus prefix, so concurrent runs never hear each other.
      const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', DATABASE_URL: TEST_PG_URL, NATS_URL: TEST_NATS_URL, NATS_PREFIX: schema.schema });
      nodes.push(await startServer(config, { pgSchema: schema.schema }));
    }
    const [nodeA, nodeB] = nodes as [RunningServer, RunningServer];
    const onB = await openAdminConsole(nodeB);
    const device = new DeviceSession({
      gatewayUrl: nodeA.deviceSocketUrl,
      sn: 'HOLD-X',
      enrollKey: nodeA.seeded.enrollKey,
      info: () => ({ model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '1', networkType: 2 }),
      handlers: new Map(),
      transport: wsTransport(),
      clock: systemClock,
    });
    try {
      device.start();
      await device.waitLoggedIn();
      const gone = firstValueFrom(onB.engine.messages$.pipe(filter((e) => e.msgId === Command.DevicePresence && e.sn === 'HOLD-X' && (e.data as { onlineState: number }).onlineState === 2)));
      device.stop();
      await gone;
      const expired = firstValueFrom(onB.engine.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone && e.sn === 'HOLD-X')));
      const viaA = client({ server: nodeA }, (await loginAsAdmin({ server: nodeA })).token);
      const held = await viaA.ok<{ pending: Held }>('POST', '/device-ops/command', { sn: 'HOLD-X', msgId: Command.PushText, data: { text: 'too late' }, ttlSeconds: 1 });
      expect((await expired).data).toMatchObject({ id: held.pending.id, state: 'expired', result: null });
    } finally {
      device.dispose();
      onB.engine.stop();
    }
  });
});
