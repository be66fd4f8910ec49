import { BehaviorSubject, filter, Observable, Subject, type Subscriber } from 'rxjs';
import { Command } from './catalogue/commands.ts';
import { type Clock, systemClock } from './clock.ts';
import { type Codec, codecFor, jsonCodec, Subprotocol, type SubprotocolName } from './codec.ts';
import { Connection, type ConnectionState, type ConnectionTuning, DEFAULT_TUNING } from './connection.ts';
import { Correlator, type PendingHandlers } from './correlator.ts';
import { type Envelope, isReply } from './envelope.ts';
import { ConnectionLostError, DecodeError, ErrorCode, QueueOverflowError, TokenRejectedError } from './errors.ts';
import type { Frame, TransportFactory } from './transport.ts';
import { Result, type ResultCode } from './catalogue/enums.ts';
import { decodeFailure, decodeProgress, decodeReply, type FailureData, MALFORMED_REPLY, type ProgressOf, type ReplyOf, type SendOf } from './catalogue/command-map.ts';
import { type Chunk, decodeChunk, encodeChunk, isChunkFrame } from './binary/chunk-frame.ts';

/** An envelope without its data and result, which {@link FinalReply} and {@link ProgressReply} type per command. */
type ReplyHead = Omit<Envelope, 'data' | 'result'>;

/** Failure result codes (1-5): their data is a refusal's {@link FailureData}. */
export type FailureCode = Exclude<ResultCode, typeof Result.Success | typeof Result.Pushing>;

/**
 * The final reply to command `K`, its data decoded by the command map (WIRE-2): a success carries
 * `ReplyOf<K>`, a failure {@link FailureData}. Narrow on `result` to read the data.
 */
export type FinalReply<K extends number = number> =
  | (ReplyHead & { readonly result: typeof Result.Success; readonly data: ReplyOf<K> })
  | (ReplyHead & { readonly result: FailureCode; readonly data: FailureData });

/** A progress reply (result 6) to command `K`: its progress data, or undefined when it has none the map knows. */
export type ProgressReply<K extends number = number> = ReplyHead & { readonly result: typeof Result.Pushing; readonly data: ProgressOf<K> | undefined };

/** What a request emits: any number of progress replies (result 6), then one final reply. */
export type RequestEvent<K extends number = number> =
  | { readonly kind: 'progress'; readonly reply: ProgressReply<K> }
  | { readonly kind: 'result'; readonly reply: FinalReply<K> };

/** True for a request's final event (the one that completes it). */
export function isFinal<K extends number>(event: RequestEvent<K>): event is Extract<RequestEvent<K>, { readonly kind: 'result' }> {
  return event.kind === 'result';
}

/**
 * Reads a final reply through the command map: the reply's data decoded for its command, a failure's
 * refusal data, and a success whose data the map refuses turned into result 2 (WIRE-3).
 */
export function finalReply<K extends number>(msgId: K, reply: Envelope): FinalReply<K> {
  if (reply.result !== Result.Success) {
    const result: FailureCode = reply.result === undefined || reply.result === Result.Pushing ? Result.Fail : reply.result;
    return { ...reply, result, data: decodeFailure(reply.data) };
  }
  const decoded = decodeReply(msgId, reply.data);
  return decoded === undefined ? { ...reply, result: Result.MessageError, data: { message: MALFORMED_REPLY } } : { ...reply, result: Result.Success, data: decoded.data };
}

/** Reads a progress reply through the command map (undefined data when the command has none the map knows). */
export function progressReply<K extends number>(msgId: K, reply: Envelope): ProgressReply<K> {
  return { ...reply, result: Result.Pushing, data: decodeProgress(msgId, reply.data)?.data };
}

export interface RequestOptions<K extends number = number> {
  readonly sn?: string;
  readonly data?: SendOf<K>;
  readonly flowId?: string;
  readonly timeoutMs?: number;
  /**
   * While disconnected, hold the request (up to the engine's queue bound) and send it on reconnect,
   * instead of failing at once. Its timeout runs from the call either way.
   */
  readonly queue?: boolean;
}

export interface EngineOptions {
  readonly url: () => string;
  readonly transport: TransportFactory;
  /** Subprotocols offered, preferred first. Default: JSON only, as the spec's console speaks. */
  readonly subprotocols?: readonly SubprotocolName[];
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly tuning?: Partial<ConnectionTuning>;
  readonly requestTimeoutMs?: number;
  /** Value added to every send as jsessionId (the spec adds the session cookie's value). */
  readonly jsessionId?: () => string | undefined;
  /** Prefix of correlation ids, so ids of different engines on one server never meet. */
  readonly idPrefix?: string;
  /** Most requests held while disconnected; one more fails with QueueOverflowError. */
  readonly maxQueued?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_QUEUED = 1_000;

// Routes correlator callbacks to a subscriber with one small object instead of three closures, since
// tens of thousands of requests may be pending at once. It is the engine's edge for replies: each is
// decoded here, once, by the command map.
class SubscriberSink<K extends number> implements PendingHandlers {
  readonly #subscriber: Subscriber<RequestEvent<K>>;
  readonly #msgId: K;
  constructor(msgId: K, subscriber: Subscriber<RequestEvent<K>>) {
    this.#msgId = msgId;
    this.#subscriber = subscriber;
  }
  progress(reply: Envelope): void {
    this.#subscriber.next({ kind: 'progress', reply: progressReply(this.#msgId, reply) });
  }
  result(reply: Envelope): void {
    this.#subscriber.next({ kind: 'result', reply: finalReply(this.#msgId, reply) });
    this.#subscriber.complete();
  }
  error(err: Error): void {
    this.#subscriber.error(err);
  }
}

/**
 * The protocol engine: one connection, its codec, and request/reply correlation, exposed as Observables.
 * Framework-free; the transport and clock are injected.
 */
export class ProtocolEngine {
  readonly #connection: Connection;
  readonly #correlator: Correlator;
  readonly #state$: BehaviorSubject<ConnectionState>;
  readonly #messages$ = new Subject<Envelope>();
  readonly #decodeErrors$ = new Subject<DecodeError>();
  readonly #chunks$ = new Subject<Chunk>();
  readonly #opts: EngineOptions;
  #codec: Codec = jsonCodec;
  #nextId = 0;
  /** Requests held while disconnected, in call order; sent on the next open. */
  #outbox: Envelope[] = [];
  readonly #queued = new Set<string>();

  constructor(opts: EngineOptions) {
    this.#opts = opts;
    const clock = opts.clock ?? systemClock;
    this.#correlator = new Correlator(clock);
    this.#state$ = new BehaviorSubject<ConnectionState>({ status: 'idle' });
    this.#connection = new Connection({
      url: opts.url,
      subprotocols: opts.subprotocols ?? [Subprotocol.Json],
      transport: opts.transport,
      clock,
      random: opts.random ?? Math.random,
      tuning: { ...DEFAULT_TUNING, ...opts.tuning },
      heartbeat: (subprotocol) => codecFor(subprotocol).encode(this.#stamp({ msgId: Command.Heartbeat })),
      onState: (state) => this.#onState(state),
      onFrame: (frame) => this.#onFrame(frame),
    });
  }

  /** Connection state, replaying the current one to each subscriber. */
  get connection$(): Observable<ConnectionState> {
    return this.#state$.asObservable();
  }

  /** Every incoming envelope that is not a reply to one of our requests. */
  get messages$(): Observable<Envelope> {
    return this.#messages$.asObservable();
  }

  /** Incoming binary chunks (file bytes, video frames) of every flow. */
  get chunks$(): Observable<Chunk> {
    return this.#chunks$.asObservable();
  }

  /** Incoming binary chunks of one flow. */
  chunks(flowId: string): Observable<Chunk> {
    return this.#chunks$.pipe(filter((c) => c.flowId === flowId));
  }

  /** Sends one binary chunk; throws ConnectionLostError when not connected. */
  sendChunk(chunk: Chunk): void {
    this.#connection.send(encodeChunk(chunk));
  }

  /** Frames the codec refused; the connection stays up. */
  get decodeErrors$(): Observable<DecodeError> {
    return this.#decodeErrors$.asObservable();
  }

  /** Requests still waiting for their final reply. */
  get pendingCount(): number {
    return this.#correlator.size;
  }

  start(): void {
    this.#connection.start();
  }

  stop(): void {
    this.#connection.stop();
  }

  /** Incoming messages of one flow (stream, shell session, transfer, push job). */
  flow(flowId: string): Observable<Envelope> {
    return this.#messages$.pipe(filter((env) => env.flowId === flowId));
  }

  /** Sends one envelope without waiting for a reply; throws ConnectionLostError when not connected. */
  send(env: Envelope): void {
    this.#connection.send(this.#codec.encode(this.#stamp(env)));
  }

  /** Answers a request received on messages$, echoing its command and correlation ids. */
  reply(request: Envelope, result: ResultCode, data?: unknown): void {
    this.send({ msgId: request.msgId, cid: request.cid, sn: request.sn, flowId: request.flowId, result, data });
  }

  /**
   * Sends a command and emits its progress and final reply. Unsubscribing forgets the request; a
   * disconnect or timeout errors it. Fails at once when not connected, unless `queue` is set.
   */
  request<K extends number>(msgId: K, options: RequestOptions<K> = {}): Observable<RequestEvent<K>> {
    return new Observable<RequestEvent<K>>((subscriber) => {
      const cid = this.call(msgId, options, new SubscriberSink(msgId, subscriber));
      return cid === undefined ? undefined : () => this.cancel(cid);
    });
  }

  /**
   * The callback form of request(), for callers that hold very many requests: returns the correlation
   * id to cancel with, or undefined when the request failed at once (the handlers have heard why).
   */
  call<K extends number>(msgId: K, options: RequestOptions<K>, handlers: PendingHandlers): string | undefined {
    const state = this.#connection.state;
    const open = state.status === 'open';
    // After a rejection nothing will ever be sent: say so rather than 'not connected', and hold nothing.
    if (state.status === 'stopped' && state.reason === 'rejected') {
      handlers.error(new TokenRejectedError());
      return undefined;
    }
    if (!open && !options.queue) {
      handlers.error(new ConnectionLostError(ErrorCode.NotConnected));
      return undefined;
    }
    if (!open && this.#outbox.length >= (this.#opts.maxQueued ?? DEFAULT_MAX_QUEUED)) {
      handlers.error(new QueueOverflowError(this.#outbox.length));
      return undefined;
    }
    const cid = `${this.#opts.idPrefix ?? 'r'}${(this.#nextId++).toString(36)}`;
    this.#correlator.register(cid, msgId, options.timeoutMs ?? this.#opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, handlers);
    const env: Envelope = { msgId, cid, sn: options.sn, flowId: options.flowId, data: options.data };
    if (!open) {
      this.#outbox.push(env);
      this.#queued.add(cid);
      return cid;
    }
    try {
      this.send(env);
    } catch (err) {
      this.#correlator.cancel(cid);
      handlers.error(err instanceof Error ? err : new Error(String(err)));
      return undefined;
    }
    return cid;
  }

  /** Forgets a request made with call(); its handlers hear nothing more. */
  cancel(cid: string): void {
    this.#correlator.cancel(cid);
    this.#queued.delete(cid);
  }

  /** Requests held while disconnected. */
  get queuedCount(): number {
    return this.#queued.size;
  }

  #stamp(env: Envelope): Envelope {
    const jsessionId = this.#opts.jsessionId?.();
    return jsessionId === undefined ? env : { ...env, jsessionId };
  }

  #onState(state: ConnectionState): void {
    if (state.status === 'open') {
      this.#codec = codecFor(state.subprotocol);
      this.#state$.next(state);
      this.#flushOutbox();
      return;
    }
    if (state.status === 'stopped') {
      // Stopped for good (or by the caller): held requests will never be sent.
      this.#outbox = [];
      this.#queued.clear();
      this.#correlator.failAll(new ConnectionLostError());
    } else {
      this.#correlator.failAll(new ConnectionLostError(), (cid) => !this.#queued.has(cid));
    }
    this.#state$.next(state);
  }

  #flushOutbox(): void {
    const outbox = this.#outbox;
    this.#outbox = [];
    for (const env of outbox) {
      const cid = env.cid as string;
      // Skip requests that timed out or were cancelled while held.
      if (!this.#queued.delete(cid) || !this.#correlator.has(cid)) continue;
      this.send(env);
    }
  }

  #onFrame(frame: Frame): void {
    let env: Envelope;
    try {
      if (typeof frame !== 'string' && isChunkFrame(frame)) {
        this.#chunks$.next(decodeChunk(frame));
        return;
      }
      env = this.#codec.decode(frame);
    } catch (err) {
      if (err instanceof DecodeError) {
        this.#decodeErrors$.next(err);
        return;
      }
      throw err;
    }
    if (isReply(env) && this.#correlator.resolve(env)) return;
    this.#messages$.next(env);
  }
}
