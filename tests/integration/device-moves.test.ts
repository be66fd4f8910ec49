import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Chunk, CloseCode, Command, encodeChunk, type Envelope, newFlowId, OnlineState, ProtocolEngine, Result } from '../../protocol/index.ts';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';
import { clusterServicesAvailable, startClusterNode } from '../support/cluster.ts';
import { client, type Client, createOrg, createRole, wipesWithoutApproval } from '../support/console-api.ts';
import { freshPgSchema } from '../support/databases.ts';
import { loginAs, loginAsAdmin, openConsole, startTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';
import { adminLoginAt, loginAt, startWorkerNode, type WorkerNode } from '../support/worker-node.ts';
import { replyDataFor } from '../support/device-replies.ts';

// A device moved to another organisation (/device/allocate) belongs to that organisation at once, in every
// process of a cluster: the old one's consoles can no longer command, watch or hear it, its held commands
// are cancelled, and its flows carry nothing more to the old organisation. Also: the command limits of
// console sockets apply to commands over HTTP, and a flow keeps the key it was opened with.

const DENIED = { result: Result.Fail, data: { message: 'Permission denied or Session expire' } };
const TOO_FREQUENT_HTTP = { code: 40029, message: 'You click too frequently！' };

type Login = { token: string; accountId: number; orgId: number };

/**
 * A device speaking JSON by hand. It records every command it is sent and answers each with result 0,
 * except those of `manual` (flows the test drives); it keeps its secret, so it can come back after the
 * gateway closes its socket (as a device moved to another organisation does).
 */
class RawDevice {
  ws!: WebSocket;
  secret = '';
  /** Commands received, in order, over every connection. */
  readonly got: Envelope[] = [];
  readonly #waiters: { match: (e: Envelope) => boolean; resolve: (e: Envelope) => void }[] = [];
  #closed: Promise<void> = Promise.resolve();
  #heartbeats = 0;

  readonly url: string;
  readonly sn: string;
  readonly manual: ReadonlySet<number>;

  private constructor(url: string, sn: string, manual: ReadonlySet<number>) {
    this.url = url;
    this.sn = sn;
    this.manual = manual;
  }

  static async enrol(url: string, sn: string, enrollKey: string, manual: readonly number[] = []): Promise<RawDevice> {
    const device = new RawDevice(url, sn, new Set(manual));
    await device.#connect(`enroll=${encodeURIComponent(enrollKey)}`);
    return device;
  }

  /** Connects again with its secret and logs in. */
  reconnect(url = this.url): Promise<void> {
    return this.#connect(`secret=${encodeURIComponent(this.secret)}`, url);
  }

  async #connect(credential: string, url = this.url): Promise<void> {
    const ws = new WebSocket(`${url}?sn=${this.sn}&${credential}`);
    this.ws = ws;
    this.#closed = new Promise((resolve) => ws.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const env = JSON.parse(data.toString()) as Envelope;
      const i = this.#waiters.findIndex((w) => w.match(env));
      if (i >= 0) this.#waiters.splice(i, 1)[0]?.resolve(env);
      if (env.result !== undefined || env.msgId === Command.Heartbeat) return;
      this.got.push(env);
      if (!this.manual.has(env.msgId)) this.send({ msgId: env.msgId, cid: env.cid, result: Result.Success, data: replyDataFor(env.msgId) });
    });
    const login = this.next((e) => e.msgId === Command.DeviceLogin && e.cid === 'login');
    this.send({ msgId: Command.DeviceLogin, cid: 'login', data: { model: 'raw', systemType: 'android' } });
    const reply = await login;
    expect(reply).toMatchObject({ result: Result.Success });
    const secret = (reply.data as { secret?: string } | undefined)?.secret;
    if (secret) this.secret = secret;
  }

  /** The next envelope matching `match` that arrives from now on. */
  next(match: (e: Envelope) => boolean): Promise<Envelope> {
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** Resolves when the current socket has closed. */
  closed(): Promise<void> {
    return this.#closed;
  }

  send(env: Envelope): void {
    this.ws.send(JSON.stringify(env));
  }

  sendChunk(chunk: Chunk): void {
    this.ws.send(encodeChunk(chunk));
  }

  /** Resolves once the gateway has handled everything this socket sent before (it answers heartbeats in order). */
  async synced(): Promise<void> {
    const cid = `hb-${this.#heartbeats++}`;
    const answered = this.next((e) => e.msgId === Command.Heartbeat && e.cid === cid);
    this.send({ msgId: Command.Heartbeat, cid });
    await answered;
  }

  close(): void {
    this.ws.close();
  }

  /** The ids of the commands it was sent. */
  get msgIds(): number[] {
    return this.got.map((e) => e.msgId);
  }
}

const ask = async (engine: ProtocolEngine, msgId: number, sn: string, data?: unknown, flowId?: string): Promise<Envelope> =>
  (await lastValueFrom(engine.request(msgId, { sn, data, flowId }))).reply;

/** A heartbeat round trip: everything the gateway sent this console before has arrived. */
const synced = async (engine: ProtocolEngine): Promise<void> => void (await lastValueFrom(engine.request(Command.Heartbeat)));

async function untilState(server: RunningServer, sn: string, state: number): Promise<void> {
  const read = async () => (await server.db.selectFrom('devices').select('online_state').where('sn', '=', sn).executeTakeFirst())?.online_state;
  while ((await read()) !== state) await new Promise((r) => setTimeout(r, 20));
}

let serial = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(serial++).toString(36)}`;

/** An organisation below the platform with its login account holding a role of `keys`, logged in. */
async function tenant(ts: { server: RunningServer }, admin: Client, keys: readonly string[]) {
  const roleId = await createRole(admin, unique('role'), [...keys]);
  const account = unique('acct');
  const orgId = await createOrg(admin, { name: unique('Org '), account, password: 'Tenant_pw1', roleId });
  const login = await loginAs(ts, account, 'Tenant_pw1');
  const enrollKey = (await admin.ok<{ enrollKey: string }>('GET', `/org/getOrg/${orgId}`)).enrollKey;
  return { orgId, roleId, account, login, enrollKey, c: client(ts, login.token) };
}

describe('a device moved to another organisation, on one node', () => {
  let ts: TestServer;
  let admin: Client;
  let adminLogin: Login;
  const engines: ProtocolEngine[] = [];
  const devices: RawDevice[] = [];

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    adminLogin = await loginAsAdmin(ts);
    admin = client(ts, adminLogin.token);
  });
  afterAll(async () => {
    for (const e of engines) e.stop();
    for (const d of devices) d.close();
    await ts?.stop();
  });

  const open = async (login: Login) => {
    const engine = await openConsole(ts.server.url, login);
    engines.push(engine);
    return engine;
  };
  const enrol = async (sn: string, key: string, manual: readonly number[] = []) => {
    const device = await RawDevice.enrol(ts.server.deviceSocketUrl, sn, key, manual);
    devices.push(device);
    return device;
  };

  it("L1 a watch ends when the device moves: the old organisation hears none of the new one's commands", async () => {
    const keys = ['device_list', 'device_base_info'];
    const A = await tenant(ts, admin, keys);
    const B = await tenant(ts, admin, keys);
    const sn = unique('MV-W-');
    const device = await enrol(sn, A.enrollKey);
    const consoleA = await open(A.login);
    // The platform watches too: it still reaches the device after the move, so it hears the outcome
    // in the same pass that would have told A.
    const platform = await open(adminLogin);
    expect(await ask(consoleA, Command.DeviceWatch, sn, { watch: true })).toMatchObject({ result: Result.Success });
    expect(await ask(platform, Command.DeviceWatch, sn, { watch: true })).toMatchObject({ result: Result.Success });

    const closed = device.closed();
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: B.orgId });
    await closed;
    await device.reconnect();

    const heardByA: Envelope[] = [];
    const sub = consoleA.messages$.pipe(filter((e) => e.msgId === Command.DeviceCommandOutcome)).subscribe((e) => heardByA.push(e));
    const platformHeard = firstValueFrom(platform.messages$.pipe(filter((e) => e.msgId === Command.DeviceCommandOutcome && e.sn === sn)));
    const consoleB = await open(B.login);
    expect(await ask(consoleB, Command.BaseInfo, sn)).toMatchObject({ result: Result.Success });
    expect(await platformHeard).toMatchObject({ data: { msgId: Command.BaseInfo, by: B.account } });
    await synced(consoleA);
    sub.unsubscribe();
    expect(heardByA).toEqual([]);
    // Watching it again is refused: the device is no longer in A's scope.
    expect(await ask(consoleA, Command.DeviceWatch, sn, { watch: true })).toMatchObject(DENIED);
  });

  it("H2 a shell flow of the old organisation carries nothing the device sends after it moved", async () => {
    const keys = ['device_list', 'device_shell'];
    const A = await tenant(ts, admin, keys);
    const B = await tenant(ts, admin, keys);
    const sn = unique('MV-SH-');
    const device = await enrol(sn, A.enrollKey, [Command.Shell]);
    const consoleA = await open(A.login);
    const flowId = newFlowId('sh');
    const heard: Envelope[] = [];
    const sub = consoleA.flow(flowId).subscribe((e) => heard.push(e));
    const opening = ask(consoleA, Command.Shell, sn, { op: 'open' }, flowId);
    const sent = await device.next((e) => e.msgId === Command.Shell && e.flowId === flowId);
    device.send({ msgId: Command.Shell, cid: sent.cid, flowId, result: Result.Success, data: { user: 'root', host: 'raw', cwd: '/', prompt: '#' } });
    expect(await opening).toMatchObject({ result: Result.Success });
    device.send({ msgId: Command.Shell, flowId, data: { output: 'before\n', offset: 0 } });
    await device.synced();
    await synced(consoleA);
    expect(heard.map((e) => e.data)).toEqual([{ output: 'before\n', offset: 0 }]);

    const closed = device.closed();
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: B.orgId });
    await closed;
    // A device keeps its shell sessions across reconnects (DOPS-2): what it prints now is B's.
    await device.reconnect();
    device.send({ msgId: Command.Shell, flowId, data: { output: 'after the move\n', offset: 7 } });
    await device.synced();
    await synced(consoleA);
    sub.unsubscribe();
    expect(heard.map((e) => e.data)).toEqual([{ output: 'before\n', offset: 0 }]);
  });

  it('DEV-2 a socket waiting beside the logged-in one is closed too when the device moves (1001), so it cannot log in under the old organisation', async () => {
    const keys = ['device_list', 'device_base_info'];
    const A = await tenant(ts, admin, keys);
    const B = await tenant(ts, admin, keys);
    const sn = unique('MV-P-');
    const device = await enrol(sn, A.enrollKey);
    // Admitted into A with the device's secret, it waits until it logs in (DEV-2).
    const waiting = new WebSocket(`${ts.server.deviceSocketUrl}?sn=${sn}&secret=${encodeURIComponent(device.secret)}`);
    const waitingClosed = new Promise<number>((resolve) => waiting.once('close', (code: number) => resolve(code)));
    await new Promise((resolve, reject) => waiting.once('open', resolve).once('error', reject));
    const beat = new Promise<Envelope>((resolve) => waiting.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as Envelope)));
    waiting.send(JSON.stringify({ msgId: Command.Heartbeat, cid: 'hb' }));
    expect(await beat).toMatchObject({ result: Result.Success });

    const closed = device.closed();
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: B.orgId });
    await closed;
    expect(await waitingClosed).toBe(CloseCode.GoingAway);
    // The device comes back under B.
    await device.reconnect();
    const consoleB = await open(B.login);
    expect(await ask(consoleB, Command.BaseInfo, sn)).toMatchObject({ result: Result.Success });
  });

  it('H3 held commands of the old organisation are cancelled when the device moves: announced to it, never sent, not listed to the new one', async () => {
    const keys = ['device_list', 'device_base_info', 'device_message'];
    const A = await tenant(ts, admin, keys);
    const B = await tenant(ts, admin, keys);
    const sn = unique('MV-HELD-');
    const device = await enrol(sn, A.enrollKey);
    device.close();
    await untilState(ts.server, sn, OnlineState.Offline);
    const consoleA = await open(A.login);
    const endedForA = firstValueFrom(consoleA.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone && e.sn === sn), take(2), toArray()));

    const held = await Promise.all([
      A.c.ok<{ delivered: boolean; pending: { id: number } }>('POST', '/device-ops/command', { sn, msgId: Command.BaseInfo, data: {}, ttlSeconds: 3600 }),
      A.c.ok<{ delivered: boolean; pending: { id: number } }>('POST', '/device-ops/command', { sn, msgId: Command.PushText, data: { text: 'from A' }, ttlSeconds: 3600 }),
    ]);
    expect(held.map((h) => h.delivered)).toEqual([false, false]);

    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: B.orgId });
    // Cancelled by the time the move is answered.
    const rows = await ts.server.db.selectFrom('device_operations').select(['id', 'state']).where('sn', '=', sn).orderBy('id').execute();
    expect(rows.map((r) => [Number(r.id), r.state])).toEqual(held.map((h) => [h.pending.id, 'cancelled']));
    const ended = await endedForA;
    expect(ended.map((e) => (e.data as { id: number; state: string }).state)).toEqual(['cancelled', 'cancelled']);
    expect(ended.map((e) => (e.data as { id: number }).id).sort()).toEqual(held.map((h) => h.pending.id).sort());
    // B sees none of A's commands for its device.
    expect((await B.c.ok<{ list: unknown[] }>('GET', `/device-ops/pending?sn=${sn}`)).list).toEqual([]);

    // B's own held command is delivered when the device returns: after A's (older) rows, had they been sent.
    const heardByA: Envelope[] = [];
    const sub = consoleA.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone || e.msgId === Command.DeviceCommandOutcome)).subscribe((e) => heardByA.push(e));
    await B.c.ok('POST', '/device-ops/command', { sn, msgId: Command.PushText, data: { text: 'from B' }, ttlSeconds: 3600 });
    const arrived = device.next((e) => e.msgId === Command.PushText);
    await device.reconnect();
    expect((await arrived).data).toEqual({ text: 'from B' });
    await device.synced();
    await synced(consoleA);
    sub.unsubscribe();
    expect(device.got.map((e) => [e.msgId, e.data])).toEqual([[Command.PushText, { text: 'from B' }]]);
    expect(heardByA).toEqual([]);
  });

  it("H3 a held command is cancelled at delivery when the device's organisation is no longer the command's", async () => {
    const keys = ['device_list', 'device_message'];
    const A = await tenant(ts, admin, keys);
    const B = await tenant(ts, admin, keys);
    const sn = unique('MV-RACE-');
    const device = await enrol(sn, A.enrollKey);
    device.close();
    await untilState(ts.server, sn, OnlineState.Offline);
    const fromA = await A.c.ok<{ pending: { id: number } }>('POST', '/device-ops/command', { sn, msgId: Command.PushText, data: { text: 'from A' }, ttlSeconds: 3600 });
    // The row moves without the route (a move whose cancellation never ran: the process died between).
    await ts.server.db.updateTable('devices').set({ org_id: B.orgId }).where('sn', '=', sn).execute();
    await B.c.ok('POST', '/device-ops/command', { sn, msgId: Command.PushText, data: { text: 'from B' }, ttlSeconds: 3600 });
    const arrived = device.next((e) => e.msgId === Command.PushText);
    await device.reconnect();
    expect((await arrived).data).toEqual({ text: 'from B' });
    expect(device.got.map((e) => e.data)).toEqual([{ text: 'from B' }]);
    const row = await ts.server.db.selectFrom('device_operations').select(['state', 'result']).where('id', '=', fromA.pending.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'cancelled', result: null });
  });

  it("H3 a held command whose submitter lost the command's key is cancelled at delivery, and announced", async () => {
    const A = await tenant(ts, admin, ['device_list', 'device_message']);
    const sn = unique('MV-KEY-');
    const device = await enrol(sn, A.enrollKey);
    device.close();
    await untilState(ts.server, sn, OnlineState.Offline);
    const fromA = await A.c.ok<{ pending: { id: number } }>('POST', '/device-ops/command', { sn, msgId: Command.PushText, data: { text: 'from A' }, ttlSeconds: 3600 });
    await admin.ok('POST', '/permit/updateRole', { id: A.roleId, name: unique('shrunk'), summary: '', permissionList: ['device_list'] });
    // The platform's own held command: sent after A's (an older row) had it been sent.
    await admin.ok('POST', '/device-ops/command', { sn, msgId: Command.BaseInfo, data: {}, ttlSeconds: 3600 });
    const platform = await open(adminLogin);
    const announced = firstValueFrom(platform.messages$.pipe(filter((e) => e.msgId === Command.HeldCommandDone && (e.data as { id: number }).id === fromA.pending.id)));
    const arrived = device.next((e) => e.msgId === Command.BaseInfo);
    await device.reconnect();
    await arrived;
    expect(device.msgIds).toEqual([Command.BaseInfo]);
    expect(await announced).toMatchObject({ sn, data: { state: 'cancelled', result: null } });
  });

  it('device_capture: a screenshot flow stops when the key is taken away (transfer begin refused, chunks and acknowledgements dropped both ways)', async () => {
    const C = await tenant(ts, admin, ['device_list', 'device_capture']);
    const sn = unique('MV-CAP-');
    const device = await enrol(sn, C.enrollKey, [Command.Screenshot]);
    const consoleC = await open(C.login);
    const flowId = newFlowId('sc');
    const chunks: Chunk[] = [];
    const flowMessages: Envelope[] = [];
    const subs = [consoleC.chunks(flowId).subscribe((c) => chunks.push(c)), consoleC.flow(flowId).subscribe((e) => flowMessages.push(e))];
    const progress = firstValueFrom(consoleC.request(Command.Screenshot, { sn, data: {}, flowId }).pipe(filter((e) => e.kind === 'progress')));
    const sent = await device.next((e) => e.msgId === Command.Screenshot && e.flowId === flowId);
    device.send({ msgId: Command.Screenshot, cid: sent.cid, flowId, result: Result.Pushing, data: { stage: 'sending', name: 'screen.png', size: 2, sha256: '', mime: 'image/png' } });
    await progress;
    device.sendChunk({ flowId, seq: 0, timestamp: 0, flags: 0, payload: new Uint8Array([1]) });
    await device.synced();
    await synced(consoleC);
    expect(chunks.map((c) => [...c.payload])).toEqual([[1]]);

    await admin.ok('POST', '/permit/updateRole', { id: C.roleId, name: unique('nocapture'), summary: '', permissionList: ['device_list'] });
    // Resuming the transfer on the flow (XFER-4) needs the key the flow was opened with.
    expect(await ask(consoleC, Command.TransferBegin, sn, { offset: 1 }, flowId)).toMatchObject(DENIED);
    const before = device.got.length;
    consoleC.sendChunk({ flowId, seq: 0, timestamp: 0, flags: 0, payload: new Uint8Array([9]) });
    consoleC.send({ msgId: Command.ChunkAck, flowId, data: { seq: 0 } });
    device.sendChunk({ flowId, seq: 1, timestamp: 1, flags: 0, payload: new Uint8Array([2]) });
    device.send({ msgId: Command.Screenshot, flowId, data: { stage: 'sending', bytes: 2, total: 2 } });
    await device.synced();
    await synced(consoleC);
    // The console's heartbeat was handled after its chunk and acknowledgement: had they been relayed, the
    // device would have them before the answer to its own heartbeat.
    await device.synced();
    subs.forEach((s) => s.unsubscribe());
    expect(chunks.map((c) => [...c.payload])).toEqual([[1]]);
    expect(flowMessages).toEqual([]);
    expect(device.got.slice(before)).toEqual([]);
  });
});

describe('command limits over HTTP (/device-ops/command), as on console sockets', () => {
  // Time stands still unless the test moves it: the spacing and the budget refill only when it says so.
  const clock = new FakeClock(Date.now());
  let dataDir = '';
  let server: RunningServer;
  let admin: Client;
  let adminLogin: Login;
  const engines: ProtocolEngine[] = [];
  const devices: RawDevice[] = [];

  beforeAll(async () => {
    // Made here, not when the file is read: a run that skips this block leaves nothing behind.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'moves-limits-'));
    server = await startServer(
      loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', CONSOLE_COMMAND_RATE: '5', CONSOLE_COMMAND_BURST: '10' }),
      { clock },
    );
    adminLogin = await loginAsAdmin({ server });
    admin = client({ server }, adminLogin.token);
  });
  afterAll(async () => {
    for (const e of engines) e.stop();
    for (const d of devices) d.close();
    await server?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const enrol = async (sn: string, key: string) => {
    const device = await RawDevice.enrol(server.deviceSocketUrl, sn, key);
    devices.push(device);
    return device;
  };

  it("M2 ten clear-data calls at once reach the device once; the others answer 'You click too frequently！'", async () => {
    const T = await tenant({ server }, admin, ['device_list', 'device_clear']);
    await wipesWithoutApproval(admin, T.orgId);
    const device = await enrol(unique('LIM-CLR-'), T.enrollKey);
    const body = { sn: device.sn, msgId: Command.ClearData, data: { packageName: 'com.example.app' } };
    const replies = await Promise.all(Array.from({ length: 10 }, () => T.c.call<{ delivered: boolean; result: number }>('POST', '/device-ops/command', body)));
    expect(replies.filter((r) => r.code === 20000).map((r) => r.data)).toEqual([{ delivered: true, result: Result.Success, data: replyDataFor(Command.ClearData) }]);
    for (const r of replies.filter((x) => x.code !== 20000)) expect(r).toMatchObject(TOO_FREQUENT_HTTP);
    expect(device.msgIds).toEqual([Command.ClearData]);
    clock.advance(1_000);
    expect((await T.c.call('POST', '/device-ops/command', body)).code).toBe(20000);
    expect(device.msgIds).toEqual([Command.ClearData, Command.ClearData]);
  });

  it('M2 a console and HTTP share the spacing of dangerous commands per device', async () => {
    clock.advance(10_000);
    const T = await tenant({ server }, admin, ['device_list', 'device_reboot']);
    const device = await enrol(unique('LIM-RB-'), T.enrollKey);
    const engine = await openConsole(server.url, T.login);
    engines.push(engine);
    expect(await ask(engine, Command.Reboot, device.sn)).toMatchObject({ result: Result.Success });
    expect(await T.c.call('POST', '/device-ops/command', { sn: device.sn, msgId: Command.Reboot, data: {} })).toMatchObject(TOO_FREQUENT_HTTP);
    // Held or not: a command that would reach the device now is spaced the same way.
    expect(await T.c.call('POST', '/device-ops/command', { sn: device.sn, msgId: Command.Reboot, data: {}, ttlSeconds: 60 })).toMatchObject(TOO_FREQUENT_HTTP);
    expect(device.msgIds).toEqual([Command.Reboot]);
  });

  it("M2 an account's commands over HTTP are limited like a console session's (CONSOLE_COMMAND_RATE, CONSOLE_COMMAND_BURST)", async () => {
    const T = await tenant({ server }, admin, ['device_list', 'device_base_info']);
    const device = await enrol(unique('LIM-BUD-'), T.enrollKey);
    const send = () => T.c.call('POST', '/device-ops/command', { sn: device.sn, msgId: Command.BaseInfo, data: {} });
    const replies = await Promise.all(Array.from({ length: 30 }, send));
    expect(replies.filter((r) => r.code === 20000)).toHaveLength(10);
    for (const r of replies.filter((x) => x.code !== 20000)) expect(r).toMatchObject(TOO_FREQUENT_HTTP);
    expect(device.msgIds).toHaveLength(10);
    // Another session of the same account draws on the same budget.
    const again = client({ server }, (await loginAs({ server }, T.account, 'Tenant_pw1')).token);
    expect(await again.call('POST', '/device-ops/command', { sn: device.sn, msgId: Command.BaseInfo, data: {} })).toMatchObject(TOO_FREQUENT_HTTP);
    clock.advance(1_000);
    const later = await Promise.all(Array.from({ length: 8 }, send));
    expect(later.filter((r) => r.code === 20000)).toHaveLength(5);
    expect(device.msgIds).toHaveLength(15);
  });
});

const clusterAvailable = await clusterServicesAvailable('device move cluster test');

describe.skipIf(!clusterAvailable)('a cluster of two nodes (PostgreSQL and NATS)', () => {
  // Time stands still unless a test moves it (the spacing of dangerous commands); nothing here needs beats.
  const clock = new FakeClock(Date.now());
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let dropSchema: (() => Promise<void>) | undefined;
  const dirs: string[] = [];
  const engines: ProtocolEngine[] = [];
  const devices: RawDevice[] = [];

  beforeAll(async () => {
    const schema = await freshPgSchema();
    dropSchema = schema.drop;
    const start = () => startClusterNode(schema.schema, dirs, { clock });
    nodeA = await start();
    nodeB = await start();
  }, 60_000);
  afterAll(async () => {
    for (const e of engines) e.stop();
    for (const d of devices) d.close();
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('H2 the node holding the device lets the old organisation go (commands, watches) and the new one in, when the move is made through the other node', async () => {
    const adminLogin = await loginAsAdmin({ server: nodeB });
    const admin = client({ server: nodeB }, adminLogin.token);
    const keys = ['device_list', 'device_base_info'];
    const mk = async () => {
      const roleId = await createRole(admin, unique('xr'), keys);
      const account = unique('xa');
      const orgId = await createOrg(admin, { name: unique('X Org '), account, password: 'Tenant_pw1', roleId });
      return { orgId, account, login: await loginAs({ server: nodeA }, account, 'Tenant_pw1'), enrollKey: (await admin.ok<{ enrollKey: string }>('GET', `/org/getOrg/${orgId}`)).enrollKey };
    };
    const A = await mk();
    const B = await mk();
    const sn = unique('XMOVE-');
    const device = await RawDevice.enrol(nodeA.deviceSocketUrl, sn, A.enrollKey);
    devices.push(device);
    await untilState(nodeB, sn, OnlineState.Online);
    // Every console is on node A, which holds the device; the move goes through node B.
    const consoleA = await openConsole(nodeA.url, A.login);
    const consoleB = await openConsole(nodeA.url, B.login);
    const platform = await openConsole(nodeA.url, await loginAsAdmin({ server: nodeA }));
    engines.push(consoleA, consoleB, platform);
    expect(await ask(consoleA, Command.BaseInfo, sn)).toMatchObject({ result: Result.Success });
    expect(await ask(consoleB, Command.BaseInfo, sn)).toMatchObject(DENIED);
    expect(await ask(consoleA, Command.DeviceWatch, sn, { watch: true })).toMatchObject({ result: Result.Success });
    expect(await ask(platform, Command.DeviceWatch, sn, { watch: true })).toMatchObject({ result: Result.Success });

    const closed = device.closed();
    await admin.ok('POST', '/device/allocate', { sns: [sn], orgId: B.orgId });
    // Answered once node A has it: A's next command does not reach the device.
    const sentBefore = device.got.length;
    expect(await ask(consoleA, Command.BaseInfo, sn)).not.toMatchObject({ result: Result.Success });
    await closed;
    expect(device.got.length).toBe(sentBefore);

    // The device comes back under B.
    await device.reconnect();
    const outcomes: Envelope[] = [];
    const sub = consoleA.messages$.pipe(filter((e) => e.msgId === Command.DeviceCommandOutcome)).subscribe((e) => outcomes.push(e));
    const platformHeard = firstValueFrom(platform.messages$.pipe(filter((e) => e.msgId === Command.DeviceCommandOutcome && e.sn === sn)));
    expect(await ask(consoleB, Command.BaseInfo, sn)).toMatchObject({ result: Result.Success });
    await platformHeard;
    await synced(consoleA);
    sub.unsubscribe();
    expect(outcomes).toEqual([]);
    expect(await ask(consoleA, Command.BaseInfo, sn)).toMatchObject(DENIED);
    expect(device.got.length).toBe(sentBefore + 1);
  });

  it('M2 dangerous commands are spaced on the node holding the device, whichever node and route they come through', async () => {
    const admin = client({ server: nodeB }, (await loginAsAdmin({ server: nodeB })).token);
    const T = await tenant({ server: nodeB }, admin, ['device_list', 'device_reboot']);
    const device = await RawDevice.enrol(nodeA.deviceSocketUrl, unique('XRB-'), T.enrollKey);
    devices.push(device);
    await untilState(nodeB, device.sn, OnlineState.Online);
    const onB = await openConsole(nodeB.url, T.login);
    const onA = await openConsole(nodeA.url, T.login);
    engines.push(onA, onB);
    expect(await ask(onB, Command.Reboot, device.sn)).toMatchObject({ result: Result.Success });
    expect(await ask(onA, Command.Reboot, device.sn)).toMatchObject({ result: Result.Fail, data: { message: 'You click too frequently！' } });
    expect(await T.c.call('POST', '/device-ops/command', { sn: device.sn, msgId: Command.Reboot, data: {} })).toMatchObject(TOO_FREQUENT_HTTP);
    expect(device.msgIds).toEqual([Command.Reboot]);
    clock.advance(1_000);
    expect(await T.c.call('POST', '/device-ops/command', { sn: device.sn, msgId: Command.Reboot, data: {} })).toMatchObject({ code: 20000, data: { result: Result.Success } });
    expect(device.msgIds).toEqual([Command.Reboot, Command.Reboot]);
  });
});

describe('H2 a device moved through another worker process of one node (GATEWAY_WORKERS=2)', () => {
  let dataDir = '';
  let node: WorkerNode | undefined;
  const engines: ProtocolEngine[] = [];
  const devices: RawDevice[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'moves-workers-'));
    node = await startWorkerNode(dataDir, 2);
  }, 60_000);
  afterAll(async () => {
    for (const e of engines) e.stop();
    for (const d of devices) d.close();
    await node?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("no console of the old organisation, on either worker, commands the devices once they moved", async () => {
    const url = node?.url ?? '';
    const admin = client({ server: { url } }, (await adminLoginAt(url)).token);
    const roleId = await createRole(admin, unique('wr'), ['device_list', 'device_base_info']);
    const orgs = await Promise.all(['wa', 'wb'].map(async (tag) => {
      const account = unique(tag);
      const orgId = await createOrg(admin, { name: unique('W Org '), account, password: 'Tenant_pw1', roleId });
      return { orgId, account, enrollKey: (await admin.ok<{ enrollKey: string }>('GET', `/org/getOrg/${orgId}`)).enrollKey };
    }));
    const [A, B] = orgs;
    if (!A || !B) throw new Error('orgs');
    // Sockets land on either worker (the kernel spreads new connections over the workers' sockets by a
    // hash of their addresses): devices and consoles are added until both workers hold some of each (at
    // least eight and four; at most 40 each, which a fair spread exceeds once in 2^39), and one HTTP call
    // moves them all through one of the workers.
    const sns: string[] = [];
    const consoles: ProtocolEngine[] = [];
    const login = await loginAt(url, A.account, 'Tenant_pw1');
    const onBoth = (key: 'devices' | 'consoles') => async () => (await workerFigures(url)).filter((w) => w[key] > 0).length === 2;
    while (sns.length < 8 || (sns.length < 40 && !(await onBoth('devices')()))) {
      const sn = unique('WMOVE-');
      devices.push(await RawDevice.enrol(node?.deviceSocketUrl ?? '', sn, A.enrollKey));
      sns.push(sn);
    }
    while (consoles.length < 4 || (consoles.length < 40 && !(await onBoth('consoles')()))) {
      const c = await openConsole(url, login);
      engines.push(c);
      consoles.push(c);
    }
    for (const c of consoles) for (const sn of sns) expect(await ask(c, Command.BaseInfo, sn)).toMatchObject({ result: Result.Success });
    const figures = await workerFigures(url);
    expect(figures.filter((w) => w.devices > 0 && w.consoles > 0)).toHaveLength(2);

    await admin.ok('POST', '/device/allocate', { sns, orgId: B.orgId });
    const sent = devices.reduce((n, d) => n + d.got.length, 0);
    const replies = await Promise.all(consoles.flatMap((c) => sns.map((sn) => ask(c, Command.BaseInfo, sn))));
    expect(replies.filter((r) => r.result === Result.Success)).toEqual([]);
    expect(devices.reduce((n, d) => n + d.got.length, 0)).toBe(sent);
  });
});

/** Per-worker device and console counts from the node's aggregated /metrics. */
async function workerFigures(url: string): Promise<{ pid: number; devices: number; consoles: number }[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const byPid = new Map<number, { devices: number; consoles: number }>();
  for (const m of text.matchAll(/^dcc_worker_(devices|consoles)_connected\{worker="\d+",pid="(\d+)"\} (\d+)$/gm)) {
    const pid = Number(m[2]);
    const entry = byPid.get(pid) ?? { devices: 0, consoles: 0 };
    entry[m[1] as 'devices' | 'consoles'] = Number(m[3]);
    byPid.set(pid, entry);
  }
  return [...byPid].map(([pid, f]) => ({ pid, ...f }));
}

