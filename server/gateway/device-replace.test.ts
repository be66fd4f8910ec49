import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { CloseCode, Command, Correlator, Result, systemClock } from '../../protocol/index.ts';
import { InProcessBus } from '../bus/in-process-bus.ts';
import { BUS_SUBJECTS } from '../bus/subjects.ts';
import { type Db, openDatabase } from '../db/database.ts';
import { DeviceRepository } from '../devices/repository.ts';
import { seed } from '../seed.ts';
import type { DeviceLink } from './device-link.ts';
import { type DeviceEndpointDeps, deviceSecretDigest, serveDevice } from './device-endpoint.ts';
import { FlowTable } from './flows.ts';

const INFO = { model: 'M1', systemType: 'linux', systemVersion: '1', imageVersion: 'img', networkType: 1 };

/** A device's socket, with what it was told: replies by cid and its close code. */
class TestDevice {
  readonly ws: WebSocket;
  readonly closed: Promise<number>;
  readonly #replies = new Map<string, (env: { result: number }) => void>();

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => resolve(code)));
    this.ws.on('message', (data: Buffer) => {
      const env = JSON.parse(data.toString()) as { cid?: string; result: number };
      if (env.cid) this.#replies.get(env.cid)?.(env);
    });
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }

  ask(msgId: number, cid: string, data?: unknown): Promise<{ result: number }> {
    return new Promise((resolve) => {
      this.#replies.set(cid, resolve);
      this.ws.send(JSON.stringify({ msgId, cid, data }));
    });
  }
}

/** A device socket opened for `sn` that has logged in. */
async function loggedIn(url: string, sn: string): Promise<TestDevice> {
  const device = new TestDevice(`${url}/?sn=${sn}`);
  await device.opened();
  expect((await device.ask(Command.DeviceLogin, 'login', INFO)).result).toBe(Result.Success);
  return device;
}

describe("DEV-2 a device's newer socket takes over when it logs in", () => {
  let db: Db;
  let wss: WebSocketServer;
  let url: string;
  let orgId: number;
  let links: Map<string, DeviceLink>;

  beforeAll(async () => {
    db = await openDatabase({ dataDir: '', inMemory: true });
    await seed(db, systemClock, 'Admin_pass_1');
    orgId = (await db.selectFrom('organisations').select('id').executeTakeFirstOrThrow()).id;
    const devices = new DeviceRepository(db);
    for (const sn of ['LATE1', 'NEW1', 'PRE1']) await devices.register(sn, orgId, deviceSecretDigest('s'), INFO, 1_000, null);
    links = new Map();
    const deps: DeviceEndpointDeps = {
      devices,
      clock: systemClock,
      links,
      pending: new Map(),
      onPresence: () => undefined,
      nodeId: 'n1',
      messageHandlers: new Map(),
      log: { warn: () => undefined },
      flows: new FlowTable(links, new InProcessBus(BUS_SUBJECTS)),
      commands: new Correlator(systemClock),
    };
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
    wss.on('connection', (ws, req) => {
      const sn = new URL(req.url ?? '/', url).searchParams.get('sn') ?? '';
      serveDevice(ws, { ok: true, sn, orgId, enrolling: false }, deps);
    });
  });
  afterAll(async () => {
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    await db.destroy();
  });

  it('DEV-2 a socket served after its device logged in on another, which never logs in, leaves the logged-in one alone (LIFE-3: 4008 stops a device for good)', async () => {
    const live = await loggedIn(url, 'LATE1');
    // The device's earlier attempt, given up on its side, reaches the node now.
    const stale = new TestDevice(`${url}/?sn=LATE1`);
    await stale.opened();
    expect((await stale.ask(Command.Heartbeat, 'beat')).result).toBe(Result.Success);
    expect((await live.ask(Command.Heartbeat, 'beat')).result).toBe(Result.Success);
    expect(live.ws.readyState).toBe(WebSocket.OPEN);
    expect(links.get('LATE1')?.loggedIn).toBe(true);
    stale.ws.close();
    expect(await stale.closed).toBe(1005);
    expect(live.ws.readyState).toBe(WebSocket.OPEN);
    live.ws.close();
    await live.closed;
  });

  it('DEV-2 a newer socket that logs in replaces the logged-in one, which is closed with 4008', async () => {
    const old = await loggedIn(url, 'NEW1');
    const fresh = await loggedIn(url, 'NEW1');
    expect(await old.closed).toBe(CloseCode.Replaced);
    expect((await fresh.ask(Command.Heartbeat, 'beat')).result).toBe(Result.Success);
    fresh.ws.close();
    await fresh.closed;
  });

  it('DEV-2 a socket that has not logged in is closed with 1013 by a newer one, and its device may reconnect', async () => {
    const first = new TestDevice(`${url}/?sn=PRE1`);
    await first.opened();
    const second = new TestDevice(`${url}/?sn=PRE1`);
    await second.opened();
    expect(await first.closed).toBe(CloseCode.TryAgainLater);
    expect((await second.ask(Command.DeviceLogin, 'login', INFO)).result).toBe(Result.Success);
    expect(links.get('PRE1')?.loggedIn).toBe(true);
    second.ws.close();
    await second.closed;
  });
});
