import WebSocket from 'ws';
import { type Codec, codecFor, Command, decodeReply, decodeRequest, DEFAULT_BACKOFF, type Envelope, isReply, reconnectDelay, Result, type ResultCode, Subprotocol, turnCorker } from '../../protocol/index.ts';
import { refusalReturn } from '../../agent/ws-transport.ts';
import { seededRandom } from '../../agent/simulator/prng.ts';
import { simulatedEntityFields, simulatedIdentity } from '../../agent/simulator/identity.ts';
import { simulatedBackend } from '../../agent/simulator/simulated-backend.ts';
import { simulatedInfo } from '../../agent/simulator/virtual-device.ts';
import { DEFAULT_TELEMETRY_PROFILE, seedOf, SimulatedLoad, simulatedLocation } from '../../agent/simulator/telemetry.ts';
import type { DeviceInfo } from '../../agent/device-session.ts';

// The bench's light simulated device: the load generator of the gateway bench, not the product. It speaks
// the device wire protocol as the agent does (enrolment by key, login with the entity fields, heartbeats,
// replies echoing msgId/cid/sn, reconnects with the spec's full-jitter backoff, secret kept for the next
// login) but answers the commands the bench sends (base info, push text) synchronously from a reply built
// once per device, with no protocol engine, no rxjs and no async handler chain per command. The full
// simulated device (agent/simulator) allocates about 5 KB per command it answers and its scavenges took
// 18-46 ms with 9,500 devices per process: the round-trip tail then measured the simulator (DECISIONS,
// Performance). Any other command is answered result 4 (unknown message id), as a device without it would.
// It reports as the full one does (location and status at login, a status a minute), so the node holds the
// same telemetry state per device.

const HEARTBEAT_MS = 300_000;
// Frames sent in one turn leave in one write per socket (the swarm's uploads in a blast, say).
const corkForThisTurn = turnCorker(setImmediate);

export interface LightDeviceOptions {
  readonly gatewayUrl: string;
  readonly sn: string;
  readonly enrollKey: string;
  readonly localAddress: string;
  readonly codec: 'json' | 'msgpack';
  readonly random: () => number;
}

export class LightDevice {
  readonly sn: string;
  loggedIn = false;
  lastClose = 0;
  #ws: WebSocket | undefined;
  #codec: Codec = codecFor('');
  #secret: string | undefined;
  #disposed = false;
  #attempt = 0;
  #lastTx = 0;
  #cid = 0;
  #lastStatus = 0;
  #load: SimulatedLoad | undefined;
  readonly #opts: LightDeviceOptions;
  readonly #info: DeviceInfo;
  /** Base info as the full simulated device would answer it, built on the first request for it. */
  #baseInfo: unknown;

  constructor(opts: LightDeviceOptions) {
    this.#opts = opts;
    this.sn = opts.sn;
    this.#info = simulatedInfo(opts.random);
  }

  start(): void {
    if (this.#disposed) return;
    const q = new URLSearchParams({ sn: this.sn });
    if (this.#secret) q.set('secret', this.#secret);
    else q.set('enroll', this.#opts.enrollKey);
    const offered = this.#opts.codec === 'msgpack' ? [Subprotocol.Msgpack, Subprotocol.Json] : [Subprotocol.Json];
    const ws = new WebSocket(`${this.#opts.gatewayUrl}?${q.toString()}`, offered, { localAddress: this.#opts.localAddress, handshakeTimeout: 10_000, perMessageDeflate: false });
    this.#ws = ws;
    ws.on('open', () => {
      this.#codec = codecFor(ws.protocol);
      const identity = simulatedIdentity(this.sn, this.#info.systemType);
      const now = Date.now();
      this.send({ msgId: Command.DeviceLogin, cid: 'login', data: { ...this.#info, ...simulatedEntityFields(identity, this.#info.systemType, now, now - identity.upBeforeStartMs) } });
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => this.#onFrame(data, isBinary));
    ws.on('error', () => undefined);
    // A refused upgrade's 503 may give a return (LIFE-2), honoured instead of this attempt's backoff.
    const retryAfter = refusalReturn(ws);
    ws.on('close', (code) => {
      this.lastClose = code;
      this.loggedIn = false;
      if (this.#ws !== ws || this.#disposed) return;
      this.#ws = undefined;
      const attempt = this.#attempt++;
      setTimeout(() => this.start(), reconnectDelay(attempt, retryAfter(), DEFAULT_BACKOFF, this.#opts.random));
    });
  }

  /** Sends one envelope (corked until the end of this turn); throws when not connected, as the engine does. */
  send(env: Envelope): void {
    const ws = this.#ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) throw new Error('not connected');
    // ws keeps the connected socket in `_socket` (ws 8); it has no public handle on it.
    const socket = (ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (socket) corkForThisTurn(socket);
    ws.send(this.#codec.encode(env));
    this.#lastTx = Date.now();
  }

  /** A status or a heartbeat when one is due (called by the swarm's one timer, not a timer per device). */
  tick(now: number): void {
    if (!this.loggedIn) return;
    if (now - this.#lastStatus >= DEFAULT_TELEMETRY_PROFILE.everyMs) this.#status(now);
    if (now - this.#lastTx >= HEARTBEAT_MS) this.send({ msgId: Command.Heartbeat, cid: `h${this.#cid++}` });
  }

  /** A status upload sent for it at `now` (a blast's) stands for its status of the minute. */
  statusSent(now: number): void {
    this.#lastStatus = now;
  }

  #status(now: number): void {
    this.#lastStatus = now;
    this.send({ msgId: Command.StatusUpload, data: (this.#load ??= new SimulatedLoad(seededRandom(seedOf(this.sn)))).next(false, now) });
  }

  dispose(): void {
    this.#disposed = true;
    this.loggedIn = false;
    this.#ws?.close(1000, 'disposed');
    this.#ws = undefined;
  }

  #onFrame(data: Buffer, isBinary: boolean): void {
    let env: Envelope;
    try {
      env = this.#codec.decode(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'));
    } catch {
      return;
    }
    if (isReply(env)) {
      if (env.cid !== 'login') return;
      if (env.result !== Result.Success) return;
      const secret = decodeReply(Command.DeviceLogin, env.data)?.data.secret;
      if (secret !== undefined) this.#secret = secret;
      this.loggedIn = true;
      this.#attempt = 0;
      this.send({ msgId: Command.LocationUpload, data: simulatedLocation(seededRandom(seedOf(this.sn))) });
      this.#status(Date.now());
      return;
    }
    const answer = (result: ResultCode, data?: unknown) => this.send({ msgId: env.msgId, cid: env.cid, sn: env.sn, flowId: env.flowId, result, data });
    try {
      if (env.msgId === Command.BaseInfo) answer(Result.Success, (this.#baseInfo ??= simulatedBackend(this.sn, this.#info, Date.now).baseInfo()));
      else if (env.msgId === Command.PushText) {
        // Decoded as the agent does (the command map's validator), so a malformed request is refused, not echoed.
        const request = decodeRequest(Command.PushText, env.data);
        if (request) answer(Result.Success, { message: `message shown: ${request.data.text}` });
        else answer(Result.MessageError);
      }
      else answer(Result.UnknownMessageId);
    } catch {
      // Closed meanwhile: the gateway has already answered the console with result 5.
    }
  }
}

/** Seeded randomness per swarm, as the full fleet's. */
export const lightRandom = (seed: number): (() => number) => seededRandom(seed);
