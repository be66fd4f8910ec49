import fs from 'node:fs';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { wsTransport } from '../../agent/ws-transport.ts';
import { type Chunk, ChunkFlag, Command, decoders as d, encodeChunk, type Envelope, newFlowId, OnlineState, ProtocolEngine, Result, type ResultCode } from '../../protocol/index.ts';
import { BUS_SUBJECTS, type BusMap, type ForwardedCommand, Subject, type SubjectDecoders } from '../../server/bus/subjects.ts';
import { NatsBus } from '../../server/bus/nats-bus.ts';
import { type RunningServer } from '../../server/server.ts';
import { clusterServicesAvailable, startClusterNode, TEST_NATS_URL } from '../support/cluster.ts';
import { client, createOrg, createRole, wipesWithoutApproval } from '../support/console-api.ts';
import { freshPgSchema } from '../support/databases.ts';
import { loginAs, loginAsAdmin, type ServerOf, startTestServer, type TestServer } from '../support/server.ts';
import { replyDataFor } from '../support/device-replies.ts';

/** A device socket the test drives by hand (JSON), with every envelope it received kept for waiting on. */
class RawDevice {
  readonly ws: WebSocket;
  readonly #inbox: Envelope[] = [];
  readonly #waiters: { match: (e: Envelope) => boolean; resolve: (e: Envelope) => void }[] = [];
  #heartbeats = 0;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const env = JSON.parse(data.toString()) as Envelope;
      const i = this.#waiters.findIndex((w) => w.match(env));
      if (i >= 0) this.#waiters.splice(i, 1)[0]?.resolve(env);
      else this.#inbox.push(env);
    });
  }

  /** Connects with an enrolment key and logs in. */
  static async enrol(deviceSocketUrl: string, sn: string, enrollKey: string): Promise<RawDevice> {
    const ws = new WebSocket(`${deviceSocketUrl}?sn=${sn}&enroll=${enrollKey}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const device = new RawDevice(ws);
    const login = device.next((e) => e.msgId === Command.DeviceLogin && e.cid === 'login');
    device.send({ msgId: Command.DeviceLogin, cid: 'login', data: { model: 'raw', systemType: 'android' } });
    expect(await login).toMatchObject({ result: Result.Success });
    return device;
  }

  /** The next envelope matching `match` (one already received counts). */
  next(match: (e: Envelope) => boolean): Promise<Envelope> {
    const i = this.#inbox.findIndex(match);
    if (i >= 0) return Promise.resolve(this.#inbox.splice(i, 1)[0] as Envelope);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  send(env: Envelope): void {
    this.ws.send(JSON.stringify(env));
  }

  /**
   * Resolves once the gateway has handled everything this socket sent before: it handles one socket's
   * messages in order, and answers a heartbeat at once.
   */
  async synced(): Promise<void> {
    const cid = `hb-${this.#heartbeats++}`;
    const answered = this.next((e) => e.msgId === Command.Heartbeat && e.cid === cid);
    this.send({ msgId: Command.Heartbeat, cid });
    await answered;
  }

  close(): void {
    this.ws.close();
  }
}

const onlineState = async (server: RunningServer, sn: string) =>
  (await server.db.selectFrom('devices').select('online_state').where('sn', '=', sn).executeTakeFirst())?.online_state;

/** Waits until a device's row has `state` (the gateway writes it after the socket opens or closes). */
async function untilState(server: RunningServer, sn: string, state: number): Promise<void> {
  while ((await onlineState(server, sn)) !== state) await new Promise((r) => setTimeout(r, 20));
}

/** A console socket of a logged-in account, once open. */
async function consoleOf(server: RunningServer, login: { token: string; accountId: number; orgId: number }): Promise<ProtocolEngine> {
  const engine = new ProtocolEngine({
    url: () => `${server.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
    transport: wsTransport(),
  });
  engine.start();
  await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
  return engine;
}

/** The final reply to a console request, and whether it has come yet (to show a forgery did not settle it). */
function request(engine: ProtocolEngine, msgId: number, sn: string, data?: unknown, flowId?: string) {
  const state = { settled: false };
  const reply = lastValueFrom(engine.request(msgId, { sn, data, flowId })).then((e) => {
    state.settled = true;
    return e.reply;
  });
  return { reply, state };
}

/** What a device of another organisation sends: replies carrying `cids` (all it might guess or know), progress and final. */
function forgeReplies(intruder: RawDevice, msgId: number, cids: readonly string[]): void {
  for (const cid of cids) {
    intruder.send({ msgId, cid, result: Result.Pushing, data: { progress: 99 } });
    intruder.send({ msgId, cid, result: Result.Success, data: { model: 'FORGED', forged: true } });
  }
}

/** The correlation ids of the former scheme (`g0, g1, ...`), plus `known`: the very id the victim was sent. */
const guesses = (known: string) => [known, ...Array.from({ length: 400 }, (_, i) => `g${i.toString(36)}`)];

describe('a device cannot answer or feed what was sent to another organisation\'s device (security issue item 1)', () => {
  let ts: TestServer;
  let victim: RawDevice;
  let intruder: RawDevice;
  let consoleB: ProtocolEngine;
  let loginB: { token: string; accountId: number; orgId: number };
  let loginA: { token: string; accountId: number; orgId: number };
  const engines: ProtocolEngine[] = [];

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const admin = await loginAsAdmin(ts);
    const c = client(ts, admin.token);
    const role = await createRole(c, 'operator', ['device_list', 'device_base_info', 'device_reset', 'device_shell', 'device_live_view']);
    const orgA = await createOrg(c, { name: 'Org A', account: 'orga1', password: 'Orga_pass1', parentId: admin.orgId, roleId: role });
    const orgB = await createOrg(c, { name: 'Org B', account: 'orgb1', password: 'Orgb_pass1', parentId: admin.orgId, roleId: role });
    // B's reset reaches its device at once (its four-eyes approval is approvals.test.ts's).
    await wipesWithoutApproval(c, orgB);
    const keyOf = async (id: number) => (await ts.server.db.selectFrom('organisations').select('enroll_key').where('id', '=', id).executeTakeFirstOrThrow()).enroll_key;
    intruder = await RawDevice.enrol(ts.server.deviceSocketUrl, 'TEN-A-1', await keyOf(orgA));
    victim = await RawDevice.enrol(ts.server.deviceSocketUrl, 'TEN-B-1', await keyOf(orgB));
    // An offline device of each organisation, for the live-view answers.
    for (const [sn, org] of [['TEN-A-OFF', orgA], ['TEN-B-OFF', orgB]] as const) {
      const d = await RawDevice.enrol(ts.server.deviceSocketUrl, sn, await keyOf(org));
      d.close();
    }
    loginA = await loginAs(ts, 'orga1', 'Orga_pass1');
    loginB = await loginAs(ts, 'orgb1', 'Orgb_pass1');
    consoleB = await consoleOf(ts.server, loginB);
    engines.push(consoleB);
    await untilState(ts.server, 'TEN-B-OFF', OnlineState.Offline);
    await untilState(ts.server, 'TEN-A-OFF', OnlineState.Offline);
  });

  afterAll(async () => {
    for (const e of engines) e.stop();
    victim?.close();
    intruder?.close();
    await ts?.stop();
  });

  it('a console command: org A\'s device answers with the victim\'s cid and 400 guessed ones; B\'s console still gets the real reply', async () => {
    const { reply, state } = request(consoleB, Command.BaseInfo, 'TEN-B-1');
    const sent = await victim.next((e) => e.msgId === Command.BaseInfo);
    expect(sent.cid).toEqual(expect.any(String));
    // An id says nothing of the next one: no counter.
    expect(sent.cid).not.toMatch(/^g[0-9a-z]{1,4}$/);
    forgeReplies(intruder, Command.BaseInfo, guesses(sent.cid as string));
    await intruder.synced();
    expect(state.settled).toBe(false);
    victim.send({ msgId: Command.BaseInfo, cid: sent.cid, result: Result.Success, data: replyDataFor(Command.BaseInfo, { model: 'REAL' }) });
    expect(await reply).toMatchObject({ result: Result.Success, data: { model: 'REAL' } });
  });

  it('over HTTP (/device-ops/command): a factory reset the victim refused is not reported done with forged data', async () => {
    const reset = client(ts, loginB.token).call<{ delivered: boolean; result: number | null; data: unknown }>('POST', '/device-ops/command', { sn: 'TEN-B-1', msgId: Command.FactoryReset });
    const sent = await victim.next((e) => e.msgId === Command.FactoryReset);
    forgeReplies(intruder, Command.FactoryReset, guesses(sent.cid as string));
    await intruder.synced();
    victim.send({ msgId: Command.FactoryReset, cid: sent.cid, result: Result.Fail, data: { message: 'refused by the test' } });
    expect((await reset).data).toEqual({ delivered: true, result: Result.Fail, data: { message: 'refused by the test' } });
  });

  it('a shell flow: output and chunks another device sends with the flow\'s id never reach B\'s console', async () => {
    const flowId = newFlowId('sh');
    const heard: Envelope[] = [];
    const chunks: Chunk[] = [];
    const subs = [consoleB.flow(flowId).subscribe((e) => heard.push(e)), consoleB.chunks(flowId).subscribe((c) => chunks.push(c))];
    try {
      const opened = request(consoleB, Command.Shell, 'TEN-B-1', { op: 'open' }, flowId);
      const sent = await victim.next((e) => e.msgId === Command.Shell && e.flowId === flowId);
      victim.send({ msgId: Command.Shell, cid: sent.cid, flowId, result: Result.Success, data: { cwd: '/', user: 'shell' } });
      expect(await opened.reply).toMatchObject({ result: Result.Success });

      intruder.send({ msgId: Command.Shell, flowId, data: { output: 'FORGED\n', offset: 0 } });
      intruder.ws.send(encodeChunk({ flowId, seq: 0, timestamp: 0, flags: 0, payload: new Uint8Array([0xee]) }));
      await intruder.synced();
      victim.send({ msgId: Command.Shell, flowId, data: { output: 'real\n', offset: 0 } });
      victim.ws.send(encodeChunk({ flowId, seq: 0, timestamp: 0, flags: 0, payload: new Uint8Array([0x01]) }));
      await expect.poll(() => heard.length + chunks.length).toBe(2);
      expect(heard.map((e) => e.data)).toEqual([{ output: 'real\n', offset: 0 }]);
      expect(chunks.map((c) => [...c.payload])).toEqual([[0x01]]);
    } finally {
      subs.forEach((s) => s.unsubscribe());
    }
  });

  it('a live stream: frames another device sends on the stream\'s flow are not shown to B\'s console', async () => {
    const started = request(consoleB, Command.StartStream, 'TEN-B-1', { quality: 'sub' });
    const ask = await victim.next((e) => e.msgId === Command.StartStream);
    const flowId = ask.flowId as string;
    expect(flowId).not.toMatch(/^lv[0-9a-z]{1,4}$/);
    victim.send({ msgId: Command.StartStream, cid: ask.cid, flowId, result: Result.Success, data: { flowId, quality: 'sub', codec: 'h264', width: 320, height: 240, fps: 15 } });
    expect(await started.reply).toMatchObject({ result: Result.Success, data: { flowId } });
    const frames = firstValueFrom(consoleB.chunks(flowId).pipe(take(1), toArray()));
    intruder.ws.send(encodeChunk({ flowId, seq: 0, timestamp: 0, flags: ChunkFlag.KeyFrame, payload: new Uint8Array([0xee]) }));
    await intruder.synced();
    victim.ws.send(encodeChunk({ flowId, seq: 0, timestamp: 0, flags: ChunkFlag.KeyFrame, payload: new Uint8Array([0x01]) }));
    expect((await frames).map((c) => [...c.payload])).toEqual([[0x01]]);
    await lastValueFrom(consoleB.request(Command.StopStream, { sn: 'TEN-B-1', data: { flowId } }));
  });

  it('item 12: live view answers an unknown serial and another organisation\'s device (online or offline) alike; only the caller\'s own offline device is 5', async () => {
    const consoleA = await consoleOf(ts.server, loginA);
    engines.push(consoleA);
    const start = async (sn: string) => (await lastValueFrom(consoleA.request(Command.StartStream, { sn, data: { quality: 'main' } }))).reply;
    const refused = { result: Result.Fail, data: { message: 'Permission denied or Session expire' } };
    for (const sn of ['TEN-NO-SUCH', 'TEN-B-1', 'TEN-B-OFF']) expect(await start(sn), sn).toMatchObject(refused);
    expect(await start('TEN-A-OFF')).toMatchObject({ result: Result.DeviceOffline });
  });
});

const available = await clusterServicesAvailable('cross-node reply binding test');

/** A foreign publisher's view of the bus: its replies may leave out the device they answer for. */
type RogueMap = Omit<BusMap, 'nodeReplies'> & { readonly nodeReplies: { readonly cid: string; readonly sn?: string; readonly msgId: number; readonly result: ResultCode; readonly data?: unknown } };
const ROGUE_SUBJECTS: SubjectDecoders<RogueMap> = {
  ...BUS_SUBJECTS,
  nodeReplies: d.object<RogueMap['nodeReplies']>({ cid: d.string(), sn: d.optional(d.string()), msgId: d.integer(), result: d.oneOf(...Object.values(Result)), data: d.opaque }),
};

describe.skipIf(!available)('across nodes: a forwarded command takes a reply only for the device it was sent to', () => {
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let rogue: NatsBus<RogueMap>;
  let victim: RawDevice;
  let consoleOnA: ProtocolEngine;
  let admin: { token: string; accountId: number; orgId: number };
  let dropSchema: () => Promise<void>;
  const dirs: string[] = [];

  beforeAll(async () => {
    const schema = await freshPgSchema();
    dropSchema = schema.drop;
    const start = () => startClusterNode(schema.schema, dirs);
    nodeA = await start();
    nodeB = await start();
    // A participant on the bus that answers commands it overhears, for another device.
    rogue = await NatsBus.connect(TEST_NATS_URL, 'rogue', schema.schema, ROGUE_SUBJECTS);
    victim = await RawDevice.enrol(nodeB.deviceSocketUrl, 'XNODE-VICTIM', nodeB.seeded.enrollKey);
    await untilState(nodeA, 'XNODE-VICTIM', OnlineState.Online);
    admin = await loginAsAdmin({ server: nodeA } satisfies ServerOf);
    consoleOnA = await consoleOf(nodeA, admin);
  });

  afterAll(async () => {
    consoleOnA?.stop();
    victim?.close();
    await rogue?.close();
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a reply on the bus naming another device, or none, does not settle the command; the device\'s own reply does', async () => {
    const overheard = new Promise<ForwardedCommand>((resolve) => {
      const off = rogue.subscribe(Subject.deviceCommand('XNODE-VICTIM'), (m) => {
        off();
        resolve(m);
      });
    });
    await rogue.flush();
    const { reply, state } = request(consoleOnA, Command.BaseInfo, 'XNODE-VICTIM');
    const forwarded = await overheard;
    const sent = await victim.next((e) => e.msgId === Command.BaseInfo);
    expect(forwarded.cid).not.toMatch(/\.[0-9a-z]{1,4}$/);

    const replies = Subject.nodeReplies(forwarded.from);
    const forged = { cid: forwarded.cid, msgId: Command.BaseInfo, result: Result.Success, data: { model: 'FORGED' } };
    rogue.publish(replies, { ...forged, sn: 'XNODE-OTHER' });
    // Node A's bus refuses a reply without its device before the gateway sees it.
    rogue.publish(replies, forged);
    // Then a presence the console on node A hears: node A has handled the forged replies before it
    // (one publisher's messages reach a subscriber in order).
    const marker = firstValueFrom(consoleOnA.messages$.pipe(filter((e) => e.msgId === Command.DevicePresence && e.sn === 'XNODE-MARKER')));
    rogue.publish(Subject.presence, { node: 'rogue', sn: 'XNODE-MARKER', orgId: admin.orgId, online: false, time: Date.now() });
    await marker;
    expect(state.settled).toBe(false);

    victim.send({ msgId: Command.BaseInfo, cid: sent.cid, result: Result.Success, data: replyDataFor(Command.BaseInfo, { model: 'REAL' }) });
    expect(await reply).toMatchObject({ result: Result.Success, data: { model: 'REAL' } });
  });
});
