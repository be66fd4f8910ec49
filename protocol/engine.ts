import { BehaviorSubject, filter, Observable, Subject } from 'rxjs';
import { Command } from './catalogue/commands.ts';
import { type Clock, systemClock } from './clock.ts';
import { type Codec, codecFor, jsonCodec, Subprotocol, type SubprotocolName } from './codec.ts';
import { Connection, type ConnectionState, type ConnectionTuning, DEFAULT_TUNING } from './connection.ts';
import { Correlator } from './correlator.ts';
import { type Envelope, isReply } from './envelope.ts';
import { ConnectionLostError, DecodeError, ErrorCode } from './errors.ts';
import type { Frame, TransportFactory } from './transport.ts';
import type { ResultCode } from './catalogue/enums.ts';

/** What a request emits: any number of progress replies (result 6), then one final reply. */
export type RequestEvent =
  | { readonly kind: 'progress'; readonly reply: Envelope }
  | { readonly kind: 'result'; readonly reply: Envelope };

export interface RequestOptions {
  readonly sn?: string;
  readonly data?: unknown;
  readonly flowId?: string;
  readonly timeoutMs?: number;
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
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

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
  readonly #opts: EngineOptions;
  #codec: Codec = jsonCodec;
  #nextId = 0;

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
   * disconnect or timeout errors it. Fails at once when not connected.
   */
  request(msgId: number, options: RequestOptions = {}): Observable<RequestEvent> {
    return new Observable<RequestEvent>((subscriber) => {
      if (this.#connection.state.status !== 'open') {
        subscriber.error(new ConnectionLostError(ErrorCode.NotConnected));
        return undefined;
      }
      const cid = `${this.#opts.idPrefix ?? 'r'}${(this.#nextId++).toString(36)}`;
      this.#correlator.register(cid, msgId, options.timeoutMs ?? this.#opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, {
        progress: (reply) => subscriber.next({ kind: 'progress', reply }),
        result: (reply) => {
          subscriber.next({ kind: 'result', reply });
          subscriber.complete();
        },
        error: (err) => subscriber.error(err),
      });
      try {
        this.send({ msgId, cid, sn: options.sn, flowId: options.flowId, data: options.data });
      } catch (err) {
        this.#correlator.cancel(cid);
        subscriber.error(err);
      }
      return () => this.#correlator.cancel(cid);
    });
  }

  #stamp(env: Envelope): Envelope {
    const jsessionId = this.#opts.jsessionId?.();
    return jsessionId === undefined ? env : { ...env, jsessionId };
  }

  #onState(state: ConnectionState): void {
    if (state.status === 'open') this.#codec = codecFor(state.subprotocol);
    else this.#correlator.failAll(new ConnectionLostError());
    this.#state$.next(state);
  }

  #onFrame(frame: Frame): void {
    let env: Envelope;
    try {
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
