/**
 * Bus traffic between the processes of one node (mesh-bus.ts), over Node's IPC channel between the
 * primary and a worker (advanced serialization) or a Unix socket between two workers (msgpack,
 * socket-port.ts); binary chunks in flow messages pass as they are on both. Plain data only; the receiving
 * process decodes each message by its subject's decoder (what crosses a process is untrusted).
 */
export type BusIpcMessage =
  /** The sender has a handler for the subject now (its first), or has none left. */
  | { readonly dcc: 'bus.sub'; readonly subject: string }
  | { readonly dcc: 'bus.unsub'; readonly subject: string }
  /** Every subject the sender listened to when the link was made has been told. */
  | { readonly dcc: 'bus.hello' }
  /** A message published by the sender on a subject the receiver listens to. */
  | { readonly dcc: 'bus.deliver'; readonly subject: string; readonly message: unknown };

const KINDS: ReadonlySet<unknown> = new Set(['bus.sub', 'bus.unsub', 'bus.deliver']);

/** True for bus traffic (the channel also carries cluster internals and the node's other messages). */
export function isBusIpcMessage(value: unknown): value is BusIpcMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { dcc?: unknown; subject?: unknown; message?: unknown };
  if (m.dcc === 'bus.hello') return true;
  if (!KINDS.has(m.dcc) || typeof m.subject !== 'string') return false;
  return m.dcc !== 'bus.deliver' || (typeof m.message === 'object' && m.message !== null);
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
 * subscribes and a presence for every other process of the node). Order on the channel
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

/** For a send to a primary that is gone: nothing to do but let 'disconnect' end the worker. */
export const ignoreSendError = (): void => undefined;

/** This worker process's channel to its primary (requires a process started with an IPC channel), batched per turn. */
export function primaryPort<T = BusIpcMessage>(proc: NodeJS.Process = process): BatchingPort<T> {
  return batchingPort<T>({
    send(message) {
      // During shutdown the primary may already have gone; what is left to say has no audience. It may
      // also go between the check and the write (a node stopped while this worker starts): the write's
      // EPIPE then goes to the callback instead of an 'error' nobody listens to, which ended the worker
      // with a stack trace; the channel's 'disconnect' ends it in order.
      if (proc.connected && proc.send) proc.send(message, undefined, undefined, ignoreSendError);
    },
    listen(handler) {
      proc.on('message', handler);
      return () => proc.off('message', handler);
    },
  });
}
