import { type Decoder, decoders as d, Invalid } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { DeviceDetails } from './details.ts';
import { type DeviceInfo, DeviceRepository } from './repository.ts';

/**
 * One node, one writer of device logins. In a node of several worker processes on SQLite, each worker
 * writing its own logins made them queue for the file's single write lock: a worker waiting for it sleeps
 * inside the statement (SQLite's busy handler), its event loop stalled, while the other worker holds it
 * (profiled at 3-4 s of a worker's 15 s busy time for 5,000 logins, most of it that wait). The workers
 * send their devices' login and offline writes to the node's primary instead, which applies them in
 * order, as many as have arrived in one transaction: one lock, one commit, no worker asleep in SQLite.
 */

/** A device's login or disconnect write, as the gateway makes it (see DeviceRepository). */
export type LoginWrite =
  | {
      readonly op: 'register';
      readonly sn: string;
      readonly orgId: number;
      readonly secretHash: string;
      readonly info: DeviceInfo;
      readonly now: number;
      readonly nodeId: string | null;
    }
  | { readonly op: 'online'; readonly sn: string; readonly info: DeviceInfo; readonly now: number; readonly nodeId: string | null; readonly bySecret: boolean }
  | { readonly op: 'offline'; readonly sn: string; readonly now: number; readonly onlineSince: number };

/** Login writes between a worker and its primary, over the node's IPC channel. */
export type LoginWriteIpcMessage =
  /** Worker to primary: apply this write. */
  | { readonly dcc: 'login.write'; readonly id: number; readonly write: LoginWrite }
  /** Primary to worker: write `id` is done; `changed` is markOffline's answer (true for the others). */
  | { readonly dcc: 'login.done'; readonly id: number; readonly changed: boolean }
  | { readonly dcc: 'login.failed'; readonly id: number; readonly message: string };

const { object, string, integer, number, optional, oneOf, tagged, boolean } = d;
const text = (max = 128) => string(max);
const time = number();
const nullable =
  <T>(decoder: Decoder<T>): Decoder<T | null> =>
  (v) =>
    v === null ? null : decoder(v);
const details = object<DeviceDetails>({
  mcu_version: optional(text()),
  install_date: optional(integer(0)),
  uptime: optional(integer(0)),
  location: optional(text()),
  imei: optional(text()),
  baseband_version: optional(text()),
  bluetooth_mac: optional(text()),
  wlan_mac: optional(text()),
  battery: optional(integer(0, 100)),
  manufacturer: optional(text()),
  gnss_model: optional(text()),
  lte_model: optional(text()),
  hardware_id: optional(text()),
  terminal_version: optional(text()),
  storage_total: optional(integer(0)),
  storage_free: optional(integer(0)),
  support_flags: optional(text(1_000)),
});
const info = object<DeviceInfo>({
  model: text(),
  systemType: text(),
  systemVersion: text(),
  imageVersion: text(),
  networkType: integer(0, 3),
  details: optional(details),
});
const sn = string(64, 1);
const nodeId = nullable(string(256));
/** A write as the primary reads it off a worker's channel (what crosses a process is decoded, not trusted). */
const loginWrite: Decoder<LoginWrite> = tagged<LoginWrite, 'op'>('op', {
  register: object<Extract<LoginWrite, { op: 'register' }>>({ op: oneOf('register'), sn, orgId: integer(), secretHash: string(256), info, now: time, nodeId }),
  online: object<Extract<LoginWrite, { op: 'online' }>>({ op: oneOf('online'), sn, info, now: time, nodeId, bySecret: boolean }),
  offline: object<Extract<LoginWrite, { op: 'offline' }>>({ op: oneOf('offline'), sn, now: time, onlineSince: time }),
});

const kindOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? (value as { dcc?: unknown }).dcc : undefined);

/** A write request off a worker's channel, decoded; undefined for anything else (or a malformed one). */
export function loginWriteRequest(value: unknown): { readonly id: number; readonly write: LoginWrite } | undefined {
  if (kindOf(value) !== 'login.write') return undefined;
  const m = value as { id?: unknown; write?: unknown };
  const id = integer(0)(m.id);
  const write = loginWrite(m.write);
  return id === Invalid || write === Invalid ? undefined : { id, write };
}

/** Applies one write through `devices`; true unless it is an offline write a newer login made moot. */
async function apply(devices: DeviceRepository, w: LoginWrite): Promise<boolean> {
  if (w.op === 'register') await devices.register(w.sn, w.orgId, w.secretHash, w.info, w.now, w.nodeId);
  else if (w.op === 'online') await devices.markOnline(w.sn, w.info, w.now, w.nodeId, w.bySecret);
  else return devices.markOffline(w.sn, w.now, w.onlineSince);
  return true;
}

/**
 * Writes per transaction at most: a storm queues thousands, and the write lock a transaction holds keeps
 * the workers' other writes (telemetry, sessions) waiting; a few hundred rows hold it for milliseconds.
 */
const BATCH_MAX = 500;

interface Queued {
  readonly write: LoginWrite;
  readonly resolve: (changed: boolean) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * The node's writer of login writes (in the primary). Writes are applied in arrival order; while one
 * transaction runs the next ones queue, so the batch grows with the load and a quiet node writes each
 * login at once. A batch whose transaction fails (one write refused: a serial enrolled twice at once) is
 * applied again write by write, outside a transaction, so only the refused write fails.
 */
export class LoginWriter {
  readonly #db: Db;
  #queue: Queued[] = [];
  #draining: Promise<void> | undefined;

  constructor(db: Db) {
    this.#db = db;
  }

  write(write: LoginWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ write, resolve, reject });
      this.#draining ??= this.#drain().finally(() => (this.#draining = undefined));
    });
  }

  /** Resolves once every write queued so far is applied (before the database closes). */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.slice(0, BATCH_MAX);
      this.#queue = this.#queue.slice(batch.length);
      let results: boolean[] | undefined;
      if (batch.length > 1) {
        try {
          results = await this.#db.transaction().execute(async (trx) => {
            const devices = new DeviceRepository(trx);
            const out: boolean[] = [];
            for (const q of batch) out.push(await apply(devices, q.write));
            return out;
          });
        } catch {
          results = undefined;
        }
      }
      if (results) {
        batch.forEach((q, i) => q.resolve(results[i] ?? true));
        continue;
      }
      const devices = new DeviceRepository(this.#db);
      for (const q of batch) {
        try {
          q.resolve(await apply(devices, q.write));
        } catch (err) {
          q.reject(err);
        }
      }
    }
  }
}

/** The primary's side for one worker: applies its writes and answers each. */
export function serveLoginWrites(writer: LoginWriter, port: { send(message: LoginWriteIpcMessage): void; listen(handler: (message: unknown) => void): () => void }): () => void {
  return port.listen((m) => {
    const req = loginWriteRequest(m);
    if (!req) {
      // A write this side cannot read still gets an answer, or the worker's login would wait for ever.
      const id = kindOf(m) === 'login.write' ? (m as { id?: unknown }).id : undefined;
      if (typeof id === 'number') port.send({ dcc: 'login.failed', id, message: 'malformed login write' });
      return;
    }
    writer.write(req.write).then(
      (changed) => port.send({ dcc: 'login.done', id: req.id, changed }),
      (err: unknown) => port.send({ dcc: 'login.failed', id: req.id, message: err instanceof Error ? err.message : String(err) }),
    );
  });
}

/** The worker's side: sends its writes to the primary and waits for each answer. */
export class LoginWriteClient {
  readonly #port: { send(message: LoginWriteIpcMessage): void };
  readonly #pending = new Map<number, { resolve: (changed: boolean) => void; reject: (err: Error) => void; readonly sentAt: number }>();
  readonly #timeoutMs: number;
  #sweep: NodeJS.Timeout | undefined;
  #next = 0;

  /**
   * `timeoutMs`: a write unanswered for this long fails, so its login fails and the device reconnects,
   * instead of a socket that waits for ever on an answer lost on the way. One sweep timer for all writes
   * (a storm has thousands in flight), armed only while some are.
   */
  constructor(port: { send(message: LoginWriteIpcMessage): void; listen(handler: (message: unknown) => void): () => void }, options: { readonly timeoutMs?: number } = {}) {
    this.#port = port;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    port.listen((m) => {
      const kind = kindOf(m);
      if (kind !== 'login.done' && kind !== 'login.failed') return;
      const answer = m as { id?: unknown; changed?: unknown; message?: unknown };
      const pending = typeof answer.id === 'number' ? this.#pending.get(answer.id) : undefined;
      if (!pending) return;
      this.#pending.delete(answer.id as number);
      if (kind === 'login.done') pending.resolve(answer.changed === true);
      else pending.reject(new Error(`the node's login writer refused the write: ${String(answer.message)}`));
    });
  }

  write(write: LoginWrite): Promise<boolean> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, sentAt: performance.now() });
      this.#port.send({ dcc: 'login.write', id, write });
      this.#sweep ??= setInterval(() => this.#expire(), Math.max(1, Math.floor(this.#timeoutMs / 4)));
      this.#sweep.unref();
    });
  }

  #expire(): void {
    const before = performance.now() - this.#timeoutMs;
    for (const [id, p] of this.#pending) {
      if (p.sentAt > before) break; // in sending order: the rest are younger
      this.#pending.delete(id);
      p.reject(new Error(`the node's login writer did not answer within ${this.#timeoutMs} ms`));
    }
    if (this.#pending.size === 0) this.#stopSweep();
  }

  #stopSweep(): void {
    if (this.#sweep) clearInterval(this.#sweep);
    this.#sweep = undefined;
  }

  /** The primary is gone: no answer will come. */
  failAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    this.#stopSweep();
  }
}

/**
 * The device repository of a worker process: its devices' login and offline writes go to the node's
 * writer (the primary); everything else reads and writes the database as usual.
 */
export class RelayedLoginRepository extends DeviceRepository {
  readonly #writes: LoginWriteClient;

  constructor(db: Db, writes: LoginWriteClient) {
    super(db);
    this.#writes = writes;
  }

  override async register(sn: string, orgId: number, secretHash: string, info: DeviceInfo, now: number, nodeId: string | null = null): Promise<void> {
    await this.#writes.write({ op: 'register', sn, orgId, secretHash, info, now, nodeId });
  }

  override async markOnline(sn: string, info: DeviceInfo, now: number, nodeId: string | null = null, bySecret = false): Promise<void> {
    await this.#writes.write({ op: 'online', sn, info, now, nodeId, bySecret });
  }

  override markOffline(sn: string, now: number, onlineSince: number): Promise<boolean> {
    return this.#writes.write({ op: 'offline', sn, now, onlineSince });
  }
}
