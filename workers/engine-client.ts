import { BehaviorSubject, filter, Observable, Subject } from 'rxjs';
import { type Chunk, type ConnectionState, type Envelope, type RequestEvent, type RequestOptions, type ResultCode, type SubprotocolName } from '../protocol/index.ts';
import { type BridgedError, type BridgePort, type FromWorker, ownBuffer, type ToWorker } from './bridge-protocol.ts';

/** An error raised in the worker, carrying its protocol error code. */
export class BridgeError extends Error {
  readonly code: string | undefined;
  constructor(e: BridgedError) {
    super(e.message);
    this.name = e.name;
    this.code = e.code;
  }
}

interface RequestSink {
  next(event: RequestEvent): void;
  complete(): void;
  error(err: Error): void;
}

/** The main thread's view of the engine worker: the engine's streams, rebuilt from bridge messages. */
export class EngineClient {
  readonly #port: BridgePort<FromWorker, ToWorker>;
  readonly #state$ = new BehaviorSubject<ConnectionState>({ status: 'idle' });
  readonly #batches$ = new Subject<readonly Envelope[]>();
  readonly #chunks$ = new Subject<Chunk>();
  readonly #messages$ = new Subject<Envelope>();
  readonly #requests = new Map<number, RequestSink>();
  #nextRid = 1;
  readonly #listener = (ev: { data: FromWorker }) => this.#handle(ev.data);

  constructor(port: BridgePort<FromWorker, ToWorker>) {
    this.#port = port;
    port.addEventListener('message', this.#listener);
  }

  /** The worker engine's connection state. */
  get connection$(): Observable<ConnectionState> {
    return this.#state$.asObservable();
  }

  /** Incoming messages in the batches the worker delivers them (about one per animation frame). */
  get batches$(): Observable<readonly Envelope[]> {
    return this.#batches$.asObservable();
  }

  /** Incoming messages one by one (the batches flattened), for flow code shared with Node (transfers, shell). */
  get messages$(): Observable<Envelope> {
    return this.#messages$.asObservable();
  }

  /** Incoming messages of one flow. */
  flow(flowId: string): Observable<Envelope> {
    return this.#messages$.pipe(filter((env) => env.flowId === flowId));
  }

  /** Answers a request received from a device on a flow, echoing its ids. */
  reply(request: Envelope, result: ResultCode, data?: unknown): void {
    this.send({ msgId: request.msgId, cid: request.cid, sn: request.sn, flowId: request.flowId, result, data });
  }

  /** Incoming binary chunks (file bytes, video frames); payloads arrive as transferred buffers. */
  get chunks$(): Observable<Chunk> {
    return this.#chunks$.asObservable();
  }

  /** Sends an envelope without waiting for a reply (acknowledgements, flow control). */
  send(envelope: Envelope): void {
    this.#port.postMessage({ type: 'send', envelope });
  }

  /** Sends a binary chunk; its payload buffer is transferred to the worker, so the caller must not reuse it. */
  sendChunk(chunk: Chunk): void {
    const payload = ownBuffer(chunk.payload);
    this.#port.postMessage({ type: 'send-chunk', chunk: { flowId: chunk.flowId, seq: chunk.seq, timestamp: chunk.timestamp, flags: chunk.flags, payload } }, [payload]);
  }

  start(url: string, options: { jsessionId?: string; subprotocols?: readonly SubprotocolName[] } = {}): void {
    this.#port.postMessage({ type: 'start', url, ...options });
  }

  stop(): void {
    this.#port.postMessage({ type: 'stop' });
  }

  /**
   * Sends a command through the worker engine; unsubscribing cancels it there. The worker's engine has
   * decoded each reply with the command map (WIRE-2) for this very msgId, so the events it posts back are
   * this request's typed events.
   */
  request<K extends number>(msgId: K, options: RequestOptions<K> = {}): Observable<RequestEvent<K>> {
    return new Observable<RequestEvent<K>>((subscriber) => {
      const rid = this.#nextRid++;
      let done = false;
      this.#requests.set(rid, {
        // The one cast of the bridge: postMessage forgets the type parameter the worker's engine decoded with.
        next: (e) => subscriber.next(e as RequestEvent<K>),
        complete: () => {
          done = true;
          subscriber.complete();
        },
        error: (err) => {
          done = true;
          subscriber.error(err);
        },
      });
      this.#port.postMessage({ type: 'request', rid, msgId, options });
      return () => {
        this.#requests.delete(rid);
        if (!done) this.#port.postMessage({ type: 'cancel', rid });
      };
    });
  }

  dispose(): void {
    this.#port.removeEventListener('message', this.#listener);
  }

  #handle(msg: FromWorker): void {
    switch (msg.type) {
      case 'state':
        this.#state$.next(msg.state);
        break;
      case 'messages':
        this.#batches$.next(msg.batch);
        if (this.#messages$.observed) for (const env of msg.batch) this.#messages$.next(env);
        break;
      case 'chunks':
        for (const c of msg.batch) this.#chunks$.next({ ...c, payload: new Uint8Array(c.payload) });
        break;
      case 'request-event':
        this.#requests.get(msg.rid)?.next(msg.event);
        break;
      case 'request-complete':
        this.#requests.get(msg.rid)?.complete();
        this.#requests.delete(msg.rid);
        break;
      case 'request-error':
        this.#requests.get(msg.rid)?.error(new BridgeError(msg.error));
        this.#requests.delete(msg.rid);
        break;
    }
  }
}
