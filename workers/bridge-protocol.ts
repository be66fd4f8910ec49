import type { ConnectionState, Envelope, RequestEvent, RequestOptions, SubprotocolName } from '../protocol/index.ts';

/** Messages from the main thread to the engine worker. */
export type ToWorker =
  | { readonly type: 'start'; readonly url: string; readonly jsessionId?: string; readonly subprotocols?: readonly SubprotocolName[] }
  | { readonly type: 'stop' }
  | { readonly type: 'request'; readonly rid: number; readonly msgId: number; readonly options: RequestOptions }
  | { readonly type: 'cancel'; readonly rid: number };

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
  | { readonly type: 'request-event'; readonly rid: number; readonly event: RequestEvent }
  | { readonly type: 'request-complete'; readonly rid: number }
  | { readonly type: 'request-error'; readonly rid: number; readonly error: BridgedError };

/** One end of a message channel: a Worker, the worker's own scope, or a MessagePort in tests. */
export interface BridgePort<In, Out> {
  postMessage(message: Out): void;
  addEventListener(type: 'message', listener: (event: { data: In }) => void): void;
  removeEventListener(type: 'message', listener: (event: { data: In }) => void): void;
}
