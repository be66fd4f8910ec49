import { type Bus, type BusLog, consoleBusLog } from './bus.ts';
import { SubjectHandlers } from './handlers.ts';
import type { BusMap, BusSubject, SubjectDecoders } from './subjects.ts';

/**
 * Bus traffic between the worker processes of one node and their primary, over Node's IPC channel
 * (advanced serialization, so binary chunks in flow messages pass as they are). Plain data only; the
 * receiving process decodes each message by its subject's decoder (what crosses a process is untrusted).
 */
export type BusIpcMessage =
  | { readonly dcc: 'bus.sub'; readonly subject: string }
  | { readonly dcc: 'bus.unsub'; readonly subject: string }
  /** Worker to primary: publish to every subscriber of the node, the publisher included (as NATS does). */
  | { readonly dcc: 'bus.pub'; readonly subject: string; readonly message: unknown }
  /** Primary to worker: a message on a subject this worker subscribed to. */
  | { readonly dcc: 'bus.deliver'; readonly subject: string; readonly message: unknown };

const KINDS: ReadonlySet<unknown> = new Set(['bus.sub', 'bus.unsub', 'bus.pub', 'bus.deliver']);

/** True for bus traffic (the channel also carries cluster internals and the node's other messages). */
export function isBusIpcMessage(value: unknown): value is BusIpcMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { dcc?: unknown; subject?: unknown; message?: unknown };
  if (!KINDS.has(m.dcc) || typeof m.subject !== 'string') return false;
  return m.dcc === 'bus.sub' || m.dcc === 'bus.unsub' || (typeof m.message === 'object' && m.message !== null);
}

/** One end of an IPC channel: a worker's to its primary, or the primary's to one worker. */
export interface IpcPort {
  send(message: BusIpcMessage): void;
  /** Hears everything arriving on the channel; returns the function that stops listening. */
  listen(handler: (message: unknown) => void): () => void;
  /** Sends what is queued now, for a port that batches (before a message that must follow it, or an exit). */
  flush?(): void;
}

/** The messages of one turn of a process on an IPC channel, sent as one (see {@link batchingPort}). */
export interface IpcBatch {
  readonly dcc: 'ipc.batch';
  readonly messages: readonly unknown[];
}

function isIpcBatch(value: unknown): value is IpcBatch {
  return typeof value === 'object' && value !== null && (value as { dcc?: unknown }).dcc === 'ipc.batch' && Array.isArray((value as { messages?: unknown }).messages);
}

/** An IPC channel end that batches per turn: `send` queues, `flush` sends the queue now. */
export interface BatchingPort<T> {
  send(message: T): void;
  listen(handler: (message: unknown) => void): () => void;
  flush(): void;
}

/**
 * Messages per IPC send at most: a fleet's login storm queues thousands in one turn, and one huge
 * serialisation would hold the channel (and both processes' heaps) for longer than a few small ones.
 */
const BATCH_MAX = 1_000;

/**
 * An IPC channel end that sends the messages of one turn of the event loop as one channel message, an
 * array, and unpacks the arrays it receives (each listener hears the messages one by one). Each
 * process.send costs a serialisation, a header and a write to the channel's pipe (`writeChannelMessage`,
 * `writeBuffer`: about 2 s of a worker's profile during a login storm, where every login is two
 * subscribes and a presence, and the primary relays each presence to every worker). Order on the channel
 * is kept: the queue leaves in the order it was filled, in the check phase of the turn it was filled in
 * (after the turn's I/O callbacks, before the next poll). The bus and the login writes share it.
 */
export function batchingPort<T>(raw: { send(message: T | IpcBatch): void; listen(handler: (message: unknown) => void): () => void }): BatchingPort<T> {
  let queue: T[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const out = queue;
    queue = [];
    if (out.length === 1) raw.send(out[0] as T);
    else for (let i = 0; i < out.length; i += BATCH_MAX) raw.send({ dcc: 'ipc.batch', messages: out.slice(i, i + BATCH_MAX) });
  };
  return {
    send(message) {
      queue.push(message);
      scheduled ??= setImmediate(flush);
    },
    listen(handler) {
      return raw.listen((m) => {
        if (!isIpcBatch(m)) return handler(m);
        for (const one of m.messages) handler(one);
      });
    },
    flush,
  };
}

/** This worker process's channel to its primary (requires a process started with an IPC channel), batched per turn. */
export function primaryPort<T = BusIpcMessage>(proc: NodeJS.Process = process): BatchingPort<T> {
  return batchingPort<T>({
    send(message) {
      // During shutdown the primary may already have gone; what is left to say has no audience.
      if (proc.connected && proc.send) proc.send(message);
    },
    listen(handler) {
      proc.on('message', handler);
      return () => proc.off('message', handler);
    },
  });
}

/**
 * The bus of a worker process in a node of several (GATEWAY_WORKERS > 1, no NATS): every message goes
 * through the node's primary, which relays it to the workers subscribed to its subject. The primary
 * learns a subject when the worker's first handler for it arrives and forgets it with the last.
 */
export class IpcBus<M = BusMap> implements Bus<M> {
  readonly shared = true;
  readonly #port: IpcPort;
  readonly #handlers: SubjectHandlers<M>;
  readonly #stopListening: () => void;

  constructor(port: IpcPort, subjects: SubjectDecoders<M>, log: BusLog = consoleBusLog) {
    this.#port = port;
    this.#handlers = new SubjectHandlers(subjects, log);
    this.#stopListening = port.listen((m) => {
      if (isBusIpcMessage(m) && m.dcc === 'bus.deliver') this.#handlers.deliver(m.subject, m.message);
    });
  }

  publish<K extends keyof M & string>(subject: BusSubject<K>, message: M[K]): void {
    this.#port.send({ dcc: 'bus.pub', subject: subject.name, message });
  }

  subscribe<K extends keyof M & string>(subject: BusSubject<K>, handler: (message: M[K]) => void): () => void {
    if (this.#handlers.add(subject, handler)) this.#port.send({ dcc: 'bus.sub', subject: subject.name });
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      if (this.#handlers.remove(subject, handler)) this.#port.send({ dcc: 'bus.unsub', subject: subject.name });
    };
  }

  async close(): Promise<void> {
    for (const subject of [...this.#handlers.names()]) this.#port.send({ dcc: 'bus.unsub', subject });
    // The process may exit right after: what is queued leaves now.
    this.#port.flush?.();
    this.#handlers.clear();
    this.#stopListening();
  }
}

/**
 * The primary's side of a node's IPC bus: relays each message published by a worker (or by the primary
 * itself, through {@link BusRelay.bus}) to every worker subscribed to its subject, the publisher included.
 */
export class BusRelay<M = BusMap> {
  /** Workers subscribed, by subject. */
  readonly #members = new Map<string, Set<IpcPort>>();
  readonly #local: SubjectHandlers<M>;
  readonly #joined = new Map<IpcPort, () => void>();

  /** The primary's own view of the node's bus (it hears and publishes like a worker). */
  readonly bus: Bus<M>;

  /** `subjects` decode what the primary's own handlers hear (workers decode what is relayed to them). */
  constructor(subjects: SubjectDecoders<M>, log: BusLog = consoleBusLog) {
    const local = new SubjectHandlers(subjects, log);
    this.#local = local;
    this.bus = {
      shared: true,
      publish: (subject, message) => this.#relay(subject.name, message),
      subscribe: (subject, handler) => {
        local.add(subject, handler);
        return () => void local.remove(subject, handler);
      },
      close: async () => local.clear(),
    };
  }

  /** Starts relaying for one worker's channel. */
  join(port: IpcPort): void {
    if (this.#joined.has(port)) return;
    this.#joined.set(
      port,
      port.listen((m) => {
        if (!isBusIpcMessage(m)) return;
        if (m.dcc === 'bus.pub') this.#relay(m.subject, m.message);
        else if (m.dcc === 'bus.sub') this.#subscribe(port, m.subject);
        else if (m.dcc === 'bus.unsub') this.#unsubscribe(port, m.subject);
      }),
    );
  }

  /** Forgets a worker that exited, with all its subscriptions. */
  leave(port: IpcPort): void {
    this.#joined.get(port)?.();
    this.#joined.delete(port);
    for (const subject of [...this.#members.keys()]) this.#unsubscribe(port, subject);
  }

  /** Subjects with at least one worker subscribed (for tests and diagnostics). */
  get subjectCount(): number {
    return this.#members.size;
  }

  #subscribe(port: IpcPort, subject: string): void {
    const set = this.#members.get(subject);
    if (set) set.add(port);
    else this.#members.set(subject, new Set([port]));
  }

  #unsubscribe(port: IpcPort, subject: string): void {
    const set = this.#members.get(subject);
    if (!set?.delete(port)) return;
    if (set.size === 0) this.#members.delete(subject);
  }

  #relay(subject: string, message: unknown): void {
    for (const port of this.#members.get(subject) ?? []) port.send({ dcc: 'bus.deliver', subject, message });
    this.#local.deliver(subject, message);
  }
}
