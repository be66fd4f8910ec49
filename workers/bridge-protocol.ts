import type { ConnectionState, Envelope, RequestEvent, RequestOptions, SubprotocolName } from '../protocol/index.ts';

/** A binary chunk as it crosses postMessage: its payload is an ArrayBuffer of its own, transferred. */
export interface BridgedChunk {
  readonly flowId: string;
  readonly seq: number;
  readonly timestamp: number;
  readonly flags: number;
  readonly payload: ArrayBuffer;
}

/** Messages from the main thread to the engine worker. */
export type ToWorker =
  | { readonly type: 'start'; readonly url: string; readonly jsessionId?: string; readonly subprotocols?: readonly SubprotocolName[] }
  | { readonly type: 'stop' }
  | { readonly type: 'request'; readonly rid: number; readonly msgId: number; readonly options: RequestOptions }
  | { readonly type: 'cancel'; readonly rid: number }
  | { readonly type: 'send'; readonly envelope: Envelope }
  | { readonly type: 'send-chunk'; readonly chunk: BridgedChunk };

/** A protocol error as it crosses postMessage (Error subclasses do not survive structured clone). */
export interface BridgedError {
  readonly name: string;
  readonly code: string | undefined;
  readonly message: string;
}

/** Messages from the engine worker to the main thread. */
export type FromWorker =
  | { readonly type: 'state'; readonly state: ConnectionState }
  /** Incoming messages, batched per frame so a busy fleet costs one main-thread task per frame. */
  | { readonly type: 'messages'; readonly batch: readonly Envelope[] }
  /** Incoming binary chunks, batched like messages, their payload buffers transferred. */
  | { readonly type: 'chunks'; readonly batch: readonly BridgedChunk[] }
  | { readonly type: 'request-event'; readonly rid: number; readonly event: RequestEvent }
  | { readonly type: 'request-complete'; readonly rid: number }
  | { readonly type: 'request-error'; readonly rid: number; readonly error: BridgedError };

/** One end of a message channel: a Worker, the worker's own scope, or a MessagePort in tests. */
export interface BridgePort<In, Out> {
  /** `transfer` moves the listed buffers to the other side instead of copying them. */
  postMessage(message: Out, transfer?: ArrayBuffer[]): void;
  addEventListener(type: 'message', listener: (event: { data: In }) => void): void;
  removeEventListener(type: 'message', listener: (event: { data: In }) => void): void;
}

/** An ArrayBuffer holding exactly `view`'s bytes, safe to transfer: the view's own buffer when it spans it. */
export function ownBuffer(view: Uint8Array): ArrayBuffer {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer) return view.buffer;
  return view.slice().buffer as ArrayBuffer;
}
