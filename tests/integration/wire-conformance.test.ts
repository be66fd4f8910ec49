/**
 * The wire contract of protocol/PROTOCOL.md, checked the way an outside implementer meets it: consoles and
 * devices played over real sockets with nothing but `ws` and a hand-written strict decoder
 * (tests/support/strict-wire.ts). No protocol engine, codec or msgpackr here: command ids are written as
 * the document lists them, and every frame the gateway sends must decode without extensions and fit ENV-2.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';
import { loginAsAdmin } from '../support/server.ts';
import { decodeWireFrame, encodeStrictMsgpack, encodeWireChunk, type WireChunk, type WireEnvelope } from '../support/strict-wire.ts';

/** Command ids as the document's table gives them. */
const Id = {
  Login: 1,
  Heartbeat: 2,
  StatusUpload: 3,
  Reboot: 65558,
  Shell: 65563,
  StartStream: 65565,
  ChunkAck: 65620,
  TransferBegin: 65621,
  Presence: 196609,
  Watch: 196611,
  WatchEvent: 196612,
} as const;

const JSON_V1 = 'mdm.v1.json';
const MSGPACK_V1 = 'mdm.v1.msgpack';

type Outgoing = { msgId: number; cid?: string; flowId?: string; sn?: string; result?: number; data?: unknown };

/** One socket as a test plays it: every frame received is decoded strictly, and what does not decode is a violation. */
class RawPeer {
  readonly ws: WebSocket;
  /** Envelopes received and not yet taken by next(). */
  readonly #inbox: WireEnvelope[] = [];
  readonly #chunks: WireChunk[] = [];
  readonly #waiters: (() => void)[] = [];
  /** Frames that broke the contract, with the reason. */
  readonly violations: string[] = [];
  /** Every envelope received, in order (kept after next() takes one). */
  readonly seen: { env: WireEnvelope; binary: boolean }[] = [];
  readonly closed: Promise<number>;
  /** Answers each command the gateway forwards (a device that does what it is told). */
  autoAnswer: ((env: WireEnvelope) => Outgoing | undefined) | undefined;

  constructor(ws: WebSocket) {
    this.ws = ws;
    this.closed = new Promise((resolve) => ws.once('close', (code: number) => resolve(code)));
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      try {
        const frame = decodeWireFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), isBinary);
        if (frame.kind === 'chunk') this.#chunks.push(frame.chunk);
        else {
          this.seen.push({ env: frame.env, binary: frame.binary });
          const answer = this.autoAnswer?.(frame.env);
          if (answer) this.send(answer);
          else this.#inbox.push(frame.env);
        }
      } catch (err) {
        this.violations.push(`${(err as Error).message} in ${isBinary ? Buffer.from(data).toString('hex') : data.toString()}`);
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    ws.on('close', () => {
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  static open(url: string, protocols?: string | string[]): Promise<RawPeer> {
    const ws = new WebSocket(url, protocols);
    const peer = new RawPeer(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(peer));
      ws.once('error', reject);
    });
  }

  /** The encoding this socket sends by: msgpack when negotiated, JSON otherwise. */
  get msgpack(): boolean {
    return this.ws.protocol.endsWith('.msgpack');
  }

  send(env: Outgoing): void {
    if (this.msgpack) this.sendMsgpack(env);
    else this.sendJson(env);
  }

  sendJson(env: Outgoing): void {
    this.ws.send(JSON.stringify(env));
  }

  sendMsgpack(env: Outgoing): void {
    this.ws.send(encodeStrictMsgpack(env), { binary: true });
  }

  sendChunk(chunk: Parameters<typeof encodeWireChunk>[0]): void {
    this.ws.send(encodeWireChunk(chunk), { binary: true });
  }

  /** The next envelope matching `pred` (earlier ones that do not match stay in the inbox). */
  async next(pred: (env: WireEnvelope) => boolean, what = 'an envelope'): Promise<WireEnvelope> {
    for (;;) {
      const i = this.#inbox.findIndex(pred);
      if (i >= 0) return this.#inbox.splice(i, 1)[0] as WireEnvelope;
      // A frame that broke the contract may be the one awaited: fail now rather than at the test's timeout.
      if (this.violations.length > 0) throw new Error(`contract violated while waiting for ${what}: ${this.violations.join('; ')}`);
      if (this.ws.readyState !== WebSocket.OPEN) throw new Error(`socket closed while waiting for ${what}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** The reply to the request with this cid (progress replies included). */
  reply(cid: string): Promise<WireEnvelope> {
    return this.next((e) => e.cid === cid && e.result !== undefined, `the reply to ${cid}`);
  }

  async nextChunk(pred: (c: WireChunk) => boolean): Promise<WireChunk> {
    for (;;) {
      const i = this.#chunks.findIndex(pred);
      if (i >= 0) return this.#chunks.splice(i, 1)[0] as WireChunk;
      if (this.ws.readyState !== WebSocket.OPEN) throw new Error('socket closed while waiting for a chunk');
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Envelopes and chunks received so far that match (nothing is taken). */
  pending(pred: (env: WireEnvelope) => boolean): WireEnvelope[] {
    return this.#inbox.filter(pred);
  }

  chunksPending(pred: (c: WireChunk) => boolean): WireChunk[] {
    return this.#chunks.filter(pred);
  }

  /** A heartbeat round trip: everything the gateway sent this socket before answering it has arrived. */
  async barrier(): Promise<void> {
    const cid = `b${++barriers}`;
    this.send({ msgId: Id.Heartbeat, cid });
    await this.reply(cid);
  }
}

let barriers = 0;
let cids = 0;
const cid = (prefix = 'c') => `${prefix}${++cids}`;

describe('wire conformance: console and device played with ws and a strict decoder', () => {
  const clock = new FakeClock(Date.now());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wire-'));
  let server: RunningServer;
  let admin: { token: string; accountId: number; orgId: number };
  const peers: RawPeer[] = [];

  beforeAll(async () => {
    server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: 'Test_pass_1', SIM_DEVICES: '0' }), { clock });
    admin = await loginAsAdmin({ server });
  });
  afterEach(() => {
    // Every frame of the test's sockets decoded strictly and fit the envelope.
    const violations = peers.flatMap((p) => p.violations);
    for (const p of peers.splice(0)) p.ws.terminate();
    expect(violations).toEqual([]);
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const consoleUrl = (login: { token: string; accountId: number; orgId: number }, query: Partial<Record<'token' | 'accountId' | 'orgId', string>> = {}) => {
    const q = new URLSearchParams({ token: login.token, accountId: String(login.accountId), orgId: String(login.orgId), ...query });
    for (const [k, v] of Object.entries(query)) if (v === '') q.delete(k);
    return `${server.url.replace('http', 'ws')}/websocket?${q.toString()}`;
  };

  const track = async (opened: Promise<RawPeer>): Promise<RawPeer> => {
    const peer = await opened;
    peers.push(peer);
    return peer;
  };

  /** A console socket of the admin's session (or another login's). */
  const openConsole = (protocols: string | string[] | undefined, login = admin) => track(RawPeer.open(consoleUrl(login), protocols));

  /** A device socket, logged in; enrols when it has no secret yet. */
  const openDevice = async (sn: string, protocols: string | string[] | undefined = MSGPACK_V1, secret?: string): Promise<RawPeer & { secret: string }> => {
    const cred = secret ? `secret=${encodeURIComponent(secret)}` : `enroll=${server.seeded.enrollKey}`;
    const peer = await track(RawPeer.open(`${server.deviceSocketUrl}?sn=${sn}&${cred}`, protocols));
    const login = cid('login');
    peer.send({ msgId: Id.Login, cid: login, data: { model: 'raw', systemType: 'linux' } });
    const reply = await peer.reply(login);
    expect(reply).toMatchObject({ msgId: Id.Login, cid: login, result: 0 });
    const issued = (reply.data as { secret?: unknown } | undefined)?.secret;
    return Object.assign(peer, { secret: typeof issued === 'string' ? issued : (secret ?? '') });
  };

  /** Answers every command the gateway forwards with result 0 and empty data. */
  const obedient = (device: RawPeer) => {
    device.autoAnswer = (env) => (env.cid?.startsWith('g') && env.result === undefined ? { msgId: env.msgId, cid: env.cid, result: 0, data: {} } : undefined);
  };

  it('ENV-1 every frame the gateway sends decodes with a strict decoder: absent fields are absent, no msgpack extension types', async () => {
    const device = await openDevice('WIRE-ENV1');
    const jsonDevice = await openDevice('WIRE-ENV1-J', JSON_V1);
    const console = await openConsole(MSGPACK_V1);

    // A heartbeat without cid: the reply is {msgId, result} and nothing else, in either encoding.
    for (const peer of [device, jsonDevice, console]) {
      peer.send({ msgId: Id.Heartbeat });
      expect(await peer.next((e) => e.msgId === Id.Heartbeat)).toStrictEqual({ msgId: Id.Heartbeat, result: 0 });
    }

    // A command without a flowId reaches the device without a flowId field.
    const reboot = cid();
    console.send({ msgId: Id.Reboot, cid: reboot, sn: 'WIRE-ENV1' });
    const forwarded = await device.next((e) => e.msgId === Id.Reboot);
    expect(Object.keys(forwarded).sort()).toEqual(['cid', 'msgId', 'sn']);
    device.send({ msgId: Id.Reboot, cid: forwarded.cid, result: 0 });
    expect(await console.reply(reboot)).toStrictEqual({ msgId: Id.Reboot, cid: reboot, sn: 'WIRE-ENV1', result: 0 });

    // Flow traffic without a cid both ways (65620 acknowledgements), relayed without one.
    obedient(device);
    const open = cid();
    console.send({ msgId: Id.Shell, cid: open, sn: 'WIRE-ENV1', flowId: 'sh-env1', data: { op: 'open' } });
    expect(await console.reply(open)).toMatchObject({ result: 0 });
    console.send({ msgId: Id.ChunkAck, flowId: 'sh-env1', data: { next: 1 } });
    expect(await device.next((e) => e.msgId === Id.ChunkAck)).toStrictEqual({ msgId: Id.ChunkAck, flowId: 'sh-env1', data: { next: 1 } });
    device.send({ msgId: Id.ChunkAck, flowId: 'sh-env1', data: { next: 2 } });
    expect(await console.next((e) => e.msgId === Id.ChunkAck)).toStrictEqual({ msgId: Id.ChunkAck, flowId: 'sh-env1', sn: 'WIRE-ENV1', data: { next: 2 } });

    // Presence of a device logging in, as consoles hear it.
    await openDevice('WIRE-ENV1-P');
    expect(await console.next((e) => e.msgId === Id.Presence && e.sn === 'WIRE-ENV1-P')).toMatchObject({ data: { onlineState: 1 } });

    expect(device.seen.every((s) => s.binary) && console.seen.every((s) => s.binary)).toBe(true);
    expect(jsonDevice.seen.every((s) => !s.binary)).toBe(true);
  });

  it('CONN-1 a console socket takes the login answer\'s token, data.id and data.org.id; a wrong accountId or orgId is refused with 4001', async () => {
    const ok = await openConsole(JSON_V1);
    await ok.barrier();
    for (const query of [{ accountId: String(admin.accountId + 1) }, { orgId: String(admin.orgId + 1) }, { orgId: '' }, { accountId: '' }, { token: 'not-a-token' }]) {
      const refused = await track(RawPeer.open(consoleUrl(admin, query), JSON_V1));
      expect(await refused.closed, JSON.stringify(query)).toBe(4001);
    }
  });

  it('CONN-2 a device enrols with its organisation\'s key, then comes back with the issued secret; a bad secret or serial is refused', async () => {
    const first = await openDevice('WIRE-CONN2');
    expect(first.secret).toMatch(/.{16,}/);
    first.ws.close();
    await first.closed;
    const back = await openDevice('WIRE-CONN2', MSGPACK_V1, first.secret);
    // A known serial's login answers without a new secret.
    expect(back.seen.find((s) => s.env.msgId === Id.Login)?.env.data).toStrictEqual({});
    for (const query of [
      `sn=WIRE-CONN2&secret=wrong`,
      `sn=WIRE-CONN2&enroll=${server.seeded.enrollKey}`,
      `sn=WIRE-UNKNOWN&secret=${first.secret}`,
      `sn=${encodeURIComponent('bad/serial')}&enroll=${server.seeded.enrollKey}`,
      `sn=${'S'.repeat(65)}&enroll=${server.seeded.enrollKey}`,
      `sn=WIRE-NEW&enroll=wrong-key`,
    ]) {
      const refused = await track(RawPeer.open(`${server.deviceSocketUrl}?${query}`, MSGPACK_V1));
      expect(await refused.closed, query).toBe(4001);
    }
  });

  it('CONN-3 refused credentials complete the upgrade (101) and then close with 4001, for consoles and devices', async () => {
    for (const url of [consoleUrl(admin, { token: 'bogus' }), `${server.deviceSocketUrl}?sn=WIRE-CONN3&secret=bogus`]) {
      const ws = new WebSocket(url, JSON_V1);
      const status = new Promise<number>((resolve) => ws.once('upgrade', (res) => resolve(res.statusCode ?? 0)));
      const opened = new Promise<boolean>((resolve) => ws.once('open', () => resolve(true)));
      const code = new Promise<number>((resolve) => ws.once('close', (c: number) => resolve(c)));
      expect(await status).toBe(101);
      expect(await opened).toBe(true);
      expect(await code).toBe(4001);
    }
  });

  it('CONN-4 subprotocols: msgpack when offered, else JSON, of a version the server speaks; none offered is JSON', async () => {
    const cases: [string[] | undefined, string, boolean][] = [
      [[JSON_V1, MSGPACK_V1], MSGPACK_V1, true],
      [[JSON_V1], JSON_V1, false],
      [undefined, '', false],
      // A later version the server does not speak is passed over for one it does (old servers, new clients).
      [['mdm.v2.msgpack', JSON_V1], JSON_V1, false],
    ];
    for (const [offered, chosen, binary] of cases) {
      const console = await openConsole(offered);
      expect(console.ws.protocol, String(offered)).toBe(chosen);
      await console.barrier();
      expect(console.seen.every((s) => s.binary === binary)).toBe(true);
    }
    // Offering only versions the server does not speak gets no subprotocol back, which fails the handshake
    // (ws, as browsers do): a client offers every version it speaks.
    await expect(RawPeer.open(consoleUrl(admin), ['mdm.v2.json'])).rejects.toThrow(/subprotocol/);
  });

  it('ENV-3 a reply echoes the request\'s msgId and cid and carries result; result 6 is progress and a final reply follows', async () => {
    const device = await openDevice('WIRE-ENV3');
    const console = await openConsole(JSON_V1);
    const mine = 'my-own-cid';
    console.send({ msgId: Id.Reboot, cid: mine, sn: 'WIRE-ENV3' });
    const forwarded = await device.next((e) => e.msgId === Id.Reboot);
    // The gateway chose its own cid for the device.
    expect(forwarded.cid).not.toBe(mine);
    device.send({ msgId: Id.Reboot, cid: forwarded.cid, result: 6, data: { step: 1 } });
    device.send({ msgId: Id.Reboot, cid: forwarded.cid, result: 0, data: { done: true } });
    expect(await console.reply(mine)).toStrictEqual({ msgId: Id.Reboot, cid: mine, sn: 'WIRE-ENV3', result: 6, data: { step: 1 } });
    expect(await console.reply(mine)).toStrictEqual({ msgId: Id.Reboot, cid: mine, sn: 'WIRE-ENV3', result: 0, data: { done: true } });
  });

  it('ENV-4 a frame over 1 MiB closes the socket with 1009, a frame that is no envelope with 1008', async () => {
    const big = await openConsole(JSON_V1);
    big.sendJson({ msgId: Id.Heartbeat, data: 'x'.repeat(1024 * 1024 + 1) });
    expect(await big.closed).toBe(1009);
    const bad = await openDevice('WIRE-ENV4');
    bad.ws.send(JSON.stringify({ msgId: Id.Heartbeat, extra: 1 }));
    expect(await bad.closed).toBe(1008);
  });

  it('RES-1 the gateway answers result 3 to a message id it does not know, from a console or a device; a device\'s own 3 is relayed', async () => {
    const device = await openDevice('WIRE-RES1');
    const console = await openConsole(JSON_V1);
    // A device -> platform id sent by a console, and an id in no table.
    for (const msgId of [Id.StatusUpload, 123_456]) {
      const asked = cid();
      console.send({ msgId, cid: asked, sn: 'WIRE-RES1' });
      expect(await console.reply(asked)).toStrictEqual({ msgId, cid: asked, sn: 'WIRE-RES1', result: 3 });
    }
    const unknown = cid();
    device.send({ msgId: 77_777, cid: unknown });
    expect(await device.reply(unknown)).toStrictEqual({ msgId: 77_777, cid: unknown, result: 3 });
    const reboot = cid();
    console.send({ msgId: Id.Reboot, cid: reboot, sn: 'WIRE-RES1' });
    const forwarded = await device.next((e) => e.msgId === Id.Reboot);
    device.send({ msgId: Id.Reboot, cid: forwarded.cid, result: 3 });
    expect(await console.reply(reboot)).toStrictEqual({ msgId: Id.Reboot, cid: reboot, sn: 'WIRE-RES1', result: 3 });
  });

  it('RES-2 the gateway answers result 2 with data.message to a malformed login, command without sn, watch or live-stream start', async () => {
    const device = await track(RawPeer.open(`${server.deviceSocketUrl}?sn=WIRE-RES2&enroll=${server.seeded.enrollKey}`, MSGPACK_V1));
    const login = cid();
    device.send({ msgId: Id.Login, cid: login, data: { systemType: 'linux' } });
    expect(await device.reply(login)).toMatchObject({ result: 2, data: { message: expect.stringMatching(/model/) } });
    const console = await openConsole(MSGPACK_V1);
    const requests: Outgoing[] = [
      { msgId: Id.Reboot },
      { msgId: Id.Watch, sn: 'WIRE-RES2', data: { watch: 1 } },
      { msgId: Id.StartStream, sn: 'WIRE-RES2', data: { quality: 'ultra' } },
      { msgId: Id.StartStream, sn: 'WIRE-RES2', data: { camera: 'side' } },
      { msgId: Id.Shell, sn: 'WIRE-RES2', flowId: 'no spaces', data: { op: 'open' } },
    ];
    for (const req of requests) {
      const asked = cid();
      console.send({ ...req, cid: asked });
      const reply = await console.reply(asked);
      expect(reply, JSON.stringify(req)).toMatchObject({ msgId: req.msgId, result: 2, data: { message: expect.any(String) } });
      expect((reply.data as { message: string }).message.length).toBeGreaterThan(0);
    }
  });

  it('DEV-1 until its login reply a device is not logged in: consoles get result 4, and so does the device; enrolment answers data.secret', async () => {
    const device = await track(RawPeer.open(`${server.deviceSocketUrl}?sn=WIRE-DEV1&enroll=${server.seeded.enrollKey}`, MSGPACK_V1));
    const console = await openConsole(JSON_V1);
    const early = cid();
    console.send({ msgId: Id.Reboot, cid: early, sn: 'WIRE-DEV1' });
    expect(await console.reply(early)).toMatchObject({ result: 4 });
    const upload = cid();
    device.send({ msgId: Id.StatusUpload, cid: upload, data: { cpu: 1, memUsed: 1, memTotal: 2 } });
    expect(await device.reply(upload)).toMatchObject({ msgId: Id.StatusUpload, result: 4 });
    const login = cid();
    device.send({ msgId: Id.Login, cid: login, data: { model: 'raw', systemType: 'android' } });
    expect(await device.reply(login)).toMatchObject({ result: 0, data: { secret: expect.stringMatching(/.{16,}/) } });
    const late = cid();
    console.send({ msgId: Id.Reboot, cid: late, sn: 'WIRE-DEV1' });
    const forwarded = await device.next((e) => e.msgId === Id.Reboot);
    device.send({ msgId: Id.Reboot, cid: forwarded.cid, result: 0 });
    expect(await console.reply(late)).toMatchObject({ result: 0 });
  });

  it('DEV-2 a second socket for the same serial replaces the first, which is closed with 4008', async () => {
    const first = await openDevice('WIRE-DEV2');
    const second = await openDevice('WIRE-DEV2', JSON_V1, first.secret);
    expect(await first.closed).toBe(4008);
    await second.barrier();
    expect(second.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('CMD-2 a command its device never answers ends after 30 s with result 1 "Request Timeout"', async () => {
    const device = await openDevice('WIRE-CMD2');
    const console = await openConsole(MSGPACK_V1);
    const asked = cid();
    console.send({ msgId: Id.Reboot, cid: asked, sn: 'WIRE-CMD2' });
    await device.next((e) => e.msgId === Id.Reboot);
    clock.advance(29_999);
    await console.barrier();
    expect(console.pending((e) => e.cid === asked)).toEqual([]);
    clock.advance(1);
    expect(await console.reply(asked)).toStrictEqual({ msgId: Id.Reboot, cid: asked, sn: 'WIRE-CMD2', result: 1, data: { message: 'Request Timeout' } });
  });

  it('WIRE-3 the gateway answers a console request whose data its command\'s decoder refuses with result 2, and the device never hears it; unknown keys never reach the device', async () => {
    const device = await openDevice('WIRE-WIRE3');
    const console = await openConsole(JSON_V1);
    for (const data of [{ op: 'dance' }, { op: 'input' }, { op: 'write', data: 42 }, 'ls', undefined]) {
      const bad = cid();
      console.send({ msgId: Id.Shell, cid: bad, sn: 'WIRE-WIRE3', flowId: `sh-${bad}`, data });
      expect(await console.reply(bad), JSON.stringify(data)).toStrictEqual({ msgId: Id.Shell, cid: bad, sn: 'WIRE-WIRE3', result: 2, data: { message: 'Malformed request data' } });
    }
    const good = cid();
    console.send({ msgId: Id.Shell, cid: good, sn: 'WIRE-WIRE3', flowId: `sh-${good}`, data: { op: 'input', line: 'ls', extra: { deep: true } } });
    const heard = await device.next((e) => e.msgId === Id.Shell);
    expect(heard.data).toStrictEqual({ op: 'input', line: 'ls' });
    device.send({ msgId: Id.Shell, cid: heard.cid, result: 0, data: { exitCode: 0, cwd: '/' } });
    expect(await console.reply(good)).toMatchObject({ result: 0 });
    expect(device.pending((e) => e.msgId === Id.Shell)).toEqual([]);
  });

  it('WATCH-1 a watching console hears the outcome of others\' commands until it stops; a watch whose data.watch is not a boolean is result 2', async () => {
    const device = await openDevice('WIRE-WATCH');
    obedient(device);
    const watcher = await openConsole(JSON_V1);
    const other = await openConsole(MSGPACK_V1, await loginAsAdmin({ server }));
    for (const data of [{ watch: 'yes' }, {}, undefined, 'watch']) {
      const bad = cid();
      watcher.send({ msgId: Id.Watch, cid: bad, sn: 'WIRE-WATCH', data });
      expect(await watcher.reply(bad), JSON.stringify(data)).toMatchObject({ result: 2, data: { message: expect.stringMatching(/watch/) } });
    }
    const on = cid();
    watcher.send({ msgId: Id.Watch, cid: on, sn: 'WIRE-WATCH', data: { watch: true } });
    expect(await watcher.reply(on)).toStrictEqual({ msgId: Id.Watch, cid: on, sn: 'WIRE-WATCH', result: 0 });
    const reboot = cid();
    other.send({ msgId: Id.Reboot, cid: reboot, sn: 'WIRE-WATCH' });
    expect(await other.reply(reboot)).toMatchObject({ result: 0 });
    const event = await watcher.next((e) => e.msgId === Id.WatchEvent);
    expect(event).toStrictEqual({ msgId: Id.WatchEvent, sn: 'WIRE-WATCH', data: { msgId: Id.Reboot, result: 0, by: 'admin', time: expect.any(Number) } });
    const off = cid();
    watcher.send({ msgId: Id.Watch, cid: off, sn: 'WIRE-WATCH', data: { watch: false } });
    expect(await watcher.reply(off)).toMatchObject({ result: 0 });
    // Past the dangerous-command spacing (CMD-4), which runs on the gateway's clock.
    clock.advance(1_000);
    const unseen = cid();
    other.send({ msgId: Id.Reboot, cid: unseen, sn: 'WIRE-WATCH' });
    expect(await other.reply(unseen)).toMatchObject({ result: 0 });
    await watcher.barrier();
    expect(watcher.pending((e) => e.msgId === Id.WatchEvent)).toEqual([]);
  });

  it('DOPS-1 flowIds are unique per console: two sessions open the same flowId on different devices, and each flow carries only its own device\'s traffic', async () => {
    const one = await openDevice('WIRE-FLOW-1');
    const two = await openDevice('WIRE-FLOW-2', JSON_V1);
    obedient(one);
    obedient(two);
    const a = await openConsole(MSGPACK_V1);
    const b = await openConsole(JSON_V1, await loginAsAdmin({ server }));
    for (const [console, sn] of [[a, 'WIRE-FLOW-1'], [b, 'WIRE-FLOW-2']] as const) {
      const opened = cid();
      console.send({ msgId: Id.Shell, cid: opened, sn, flowId: 'sh-same', data: { op: 'open' } });
      expect(await console.reply(opened)).toMatchObject({ result: 0 });
    }
    // Each device's output reaches its own console, naming the device.
    one.send({ msgId: Id.Shell, flowId: 'sh-same', data: { output: 'from one' } });
    two.send({ msgId: Id.Shell, flowId: 'sh-same', data: { output: 'from two' } });
    expect(await a.next((e) => e.flowId === 'sh-same' && e.result === undefined)).toStrictEqual({ msgId: Id.Shell, flowId: 'sh-same', sn: 'WIRE-FLOW-1', data: { output: 'from one' } });
    expect(await b.next((e) => e.flowId === 'sh-same' && e.result === undefined)).toStrictEqual({ msgId: Id.Shell, flowId: 'sh-same', sn: 'WIRE-FLOW-2', data: { output: 'from two' } });
    // Each console's chunks and acknowledgements reach its own device.
    a.sendChunk({ flowId: 'sh-same', flags: 0, seq: 0, payload: new Uint8Array([1]) });
    b.sendChunk({ flowId: 'sh-same', flags: 0, seq: 0, payload: new Uint8Array([2]) });
    expect((await one.nextChunk((c) => c.flowId === 'sh-same')).payload).toEqual(new Uint8Array([1]));
    expect((await two.nextChunk((c) => c.flowId === 'sh-same')).payload).toEqual(new Uint8Array([2]));
    await Promise.all([a.barrier(), b.barrier(), one.barrier(), two.barrier()]);
    expect([a.pending((e) => e.flowId === 'sh-same'), b.pending((e) => e.flowId === 'sh-same'), one.chunksPending(() => true), two.chunksPending(() => true)]).toEqual([[], [], [], []]);
    // The device sees flowIds as they are, so one device's flowId stays one console's.
    const taken = cid();
    b.send({ msgId: Id.Shell, cid: taken, sn: 'WIRE-FLOW-1', flowId: 'sh-same', data: { op: 'open' } });
    expect(await b.reply(taken)).toStrictEqual({ msgId: Id.Shell, cid: taken, sn: 'WIRE-FLOW-1', result: 1, data: { message: 'flowId is in use' } });
  });

  it('DOPS-1 a flowId no chunk header can carry is refused with result 2 and data.message, and never reaches the device', async () => {
    const device = await openDevice('WIRE-FLOW-BAD');
    obedient(device);
    const console = await openConsole(JSON_V1);
    for (const flowId of ['has space', 'a/b', 'f'.repeat(65), '', 'é']) {
      const asked = cid();
      console.send({ msgId: Id.Shell, cid: asked, sn: 'WIRE-FLOW-BAD', flowId, data: { op: 'open' } });
      expect(await console.reply(asked), JSON.stringify(flowId)).toMatchObject({ result: 2, data: { message: expect.stringMatching(/flowId/) } });
    }
    const fine = cid();
    console.send({ msgId: Id.Shell, cid: fine, sn: 'WIRE-FLOW-BAD', flowId: 'f'.repeat(64), data: { op: 'open' } });
    expect(await console.reply(fine)).toMatchObject({ result: 0 });
    expect(device.seen.filter((s) => s.env.msgId === Id.Shell).map((s) => s.env.flowId)).toEqual(['f'.repeat(64)]);
  });

  it('DOPS-1 a console holds at most 64 flows: opening a 65th forgets its oldest, whose traffic is then dropped', async () => {
    const device = await openDevice('WIRE-FLOW-MANY');
    obedient(device);
    const console = await openConsole(MSGPACK_V1);
    for (let i = 0; i <= 64; i++) {
      const opened = cid();
      console.send({ msgId: Id.Shell, cid: opened, sn: 'WIRE-FLOW-MANY', flowId: `sh-${i}`, data: { op: 'open' } });
      expect(await console.reply(opened)).toMatchObject({ result: 0 });
    }
    device.send({ msgId: Id.Shell, flowId: 'sh-0', data: { output: 'forgotten' } });
    device.send({ msgId: Id.Shell, flowId: 'sh-1', data: { output: 'kept' } });
    expect(await console.next((e) => e.result === undefined && e.msgId === Id.Shell)).toMatchObject({ flowId: 'sh-1', data: { output: 'kept' } });
    expect(console.pending((e) => e.flowId === 'sh-0')).toEqual([]);
  });

  it('CHUNK-3 a msgpack envelope in a binary frame is read on a mdm.v1.json socket (and JSON text on a msgpack one)', async () => {
    const jsonConsole = await openConsole(JSON_V1);
    const jsonDevice = await openDevice('WIRE-CHUNK3', JSON_V1);
    for (const peer of [jsonConsole, jsonDevice]) {
      const asked = cid();
      peer.sendMsgpack({ msgId: Id.Heartbeat, cid: asked });
      // Answered in the socket's own encoding.
      expect(await peer.reply(asked)).toStrictEqual({ msgId: Id.Heartbeat, cid: asked, result: 0 });
      expect(peer.seen.at(-1)?.binary).toBe(false);
    }
    const msgpackConsole = await openConsole(MSGPACK_V1);
    const asked = cid();
    msgpackConsole.sendJson({ msgId: Id.Heartbeat, cid: asked });
    expect(await msgpackConsole.reply(asked)).toMatchObject({ result: 0 });
    expect(msgpackConsole.seen.at(-1)?.binary).toBe(true);
  });
});
