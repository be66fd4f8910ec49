import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { Command, Correlator, OnlineState, systemClock } from '../../protocol/index.ts';
import { InProcessBus } from '../bus/in-process-bus.ts';
import { BUS_SUBJECTS } from '../bus/subjects.ts';
import { type Db, openDatabase } from '../db/database.ts';
import { type DeviceInfo, DeviceRepository } from '../devices/repository.ts';
import { seed } from '../seed.ts';
import type { DeviceLink } from './device-link.ts';
import { serveDevice } from './device-endpoint.ts';
import { FlowTable } from './flows.ts';

/** A repository whose online writes wait until the test lets them through: the socket can close meanwhile. */
class GatedDevices extends DeviceRepository {
  gate: Promise<void> = Promise.resolve();
  override async markOnline(sn: string, info: DeviceInfo, now: number, nodeId: string | null = null): Promise<void> {
    await this.gate;
    await super.markOnline(sn, info, now, nodeId);
  }
}

describe('a device socket that closes while its login is being written', () => {
  let db: Db;
  let wss: WebSocketServer;
  let url: string;
  let orgId: number;

  beforeAll(async () => {
    db = await openDatabase({ dataDir: '', inMemory: true });
    await seed(db, systemClock, 'Admin_pass_1');
    orgId = (await db.selectFrom('organisations').select('id').executeTakeFirstOrThrow()).id;
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    wss.close();
    await db.destroy();
  });

  it('leaves the row offline: the login write that lands after the close is followed by an offline write', async () => {
    const devices = new GatedDevices(db);
    const info = { model: 'M1', systemType: 'linux', systemVersion: '1', imageVersion: 'img', networkType: 1 };
    await devices.register('RACE1', orgId, 'digest', info, 1_000, null);
    await devices.markOffline('RACE1', 1_001, 1_000);
    let open!: () => void;
    devices.gate = new Promise((r) => (open = r));
    const writes: Promise<unknown>[] = [];
    const presence: boolean[] = [];
    const links = new Map<string, DeviceLink>();
    wss.once('connection', (ws) =>
      serveDevice(ws, { ok: true, sn: 'RACE1', orgId, enrolling: false }, {
        devices,
        clock: systemClock,
        links,
        pending: new Map(),
        onPresence: (_link, online) => presence.push(online),
        nodeId: 'n1',
        track: (w) => writes.push(w),
        messageHandlers: new Map(),
        log: { warn: () => undefined },
        flows: new FlowTable(links, new InProcessBus(BUS_SUBJECTS)),
        commands: new Correlator(systemClock),
      }),
    );
    const device = new WebSocket(url);
    await new Promise((r) => device.once('open', r));
    await new Promise<void>((resolve, reject) => device.send(JSON.stringify({ msgId: Command.DeviceLogin, cid: 'c1', data: info }), (err) => (err ? reject(err) : resolve())));
    // The login reaches the gate in the turn its frame is read, before the close that follows it; the
    // device goes away while the write waits there.
    device.terminate();
    await vi.waitFor(() => expect(links.size).toBe(0), { timeout: 10_000 });
    open();
    await vi.waitFor(() => expect(writes).toHaveLength(1), { timeout: 10_000 });
    await Promise.all(writes);
    const row = await db.selectFrom('devices').select(['online_state', 'node_id']).where('sn', '=', 'RACE1').executeTakeFirstOrThrow();
    expect(row).toEqual({ online_state: OnlineState.Offline, node_id: null });
    // Consoles never heard this login, so they hear no offline either.
    expect(presence).toEqual([]);
  });
});
