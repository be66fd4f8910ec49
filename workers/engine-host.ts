import type { Subscription } from 'rxjs';
import { type Chunk, type Clock, type Envelope, ProtocolEngine, ProtocolError, systemClock, type TransportFactory } from '../protocol/index.ts';
import { type BridgedChunk, type BridgedError, type BridgePort, type FromWorker, ownBuffer, type ToWorker } from './bridge-protocol.ts';

/** How often queued incoming messages are flushed to the main thread (one animation frame). */
export const FLUSH_EVERY_MS = 16;

function bridged(err: unknown): BridgedError {
  if (err instanceof ProtocolError) return { name: err.name, code: err.code, message: err.message };
  return { name: 'Error', code: undefined, message: err instanceof Error ? err.message : String(err) };
}

/**
 * The worker side of the bridge: owns one ProtocolEngine and serves the main thread's requests over a
 * port. Separate from the worker entry so it runs in Node tests over a MessageChannel.
 */
export class EngineHost {
  readonly #port: BridgePort<ToWorker, FromWorker>;
  readonly #transport: TransportFactory;
  readonly #clock: Clock;
  #engine: ProtocolEngine | undefined;
  #engineSubs: Subscription[] = [];
  readonly #requests = new Map<number, Subscription>();
  #queue: Envelope[] = [];
  #chunkQueue: Chunk[] = [];
  #flushTimer: unknown;

  constructor(port: BridgePort<ToWorker, FromWorker>, transport: TransportFactory, clock: Clock = systemClock) {
    this.#port = port;
    this.#transport = transport;
    this.#clock = clock;
    port.addEventListener('message', (ev) => this.#handle(ev.data));
  }

  #handle(msg: ToWorker): void {
    switch (msg.type) {
      case 'start':
        this.#stopEngine();
        this.#engine = new ProtocolEngine({
          url: () => msg.url,
          transport: this.#transport,
          clock: this.#clock,
          subprotocols: msg.subprotocols,
          jsessionId: msg.jsessionId === undefined ? undefined : () => msg.jsessionId,
          idPrefix: 'w',
        });
        this.#engineSubs = [
          this.#engine.connection$.subscribe((state) => this.#port.postMessage({ type: 'state', state })),
          this.#engine.messages$.subscribe((env) => {
            this.#queue.push(env);
            this.#scheduleFlush();
          }),
          this.#engine.chunks$.subscribe((chunk) => {
            this.#chunkQueue.push(chunk);
            this.#scheduleFlush();
          }),
        ];
        this.#engine.start();
        break;
      case 'stop':
        this.#stopEngine();
        break;
      case 'request': {
        const engine = this.#engine;
        if (!engine) {
          this.#port.postMessage({ type: 'request-error', rid: msg.rid, error: { name: 'ConnectionLostError', code: 'NOT_CONNECTED', message: 'Not connected' } });
          return;
        }
        const sub = engine.request(msg.msgId, msg.options).subscribe({
          next: (event) => {
            // Messages of a flow that came before this reply (shell output, say) reach the page first.
            if (this.#queue.length > 0 || this.#chunkQueue.length > 0) this.#flushNow();
            this.#port.postMessage({ type: 'request-event', rid: msg.rid, event });
          },
          complete: () => {
            this.#requests.delete(msg.rid);
            this.#port.postMessage({ type: 'request-complete', rid: msg.rid });
          },
          error: (err: unknown) => {
            this.#requests.delete(msg.rid);
            this.#port.postMessage({ type: 'request-error', rid: msg.rid, error: bridged(err) });
          },
        });
        if (!sub.closed) this.#requests.set(msg.rid, sub);
        break;
      }
      case 'cancel':
        this.#requests.get(msg.rid)?.unsubscribe();
        this.#requests.delete(msg.rid);
        break;
      case 'send':
        this.#trySend(() => this.#engine?.send(msg.envelope));
        break;
      case 'send-chunk':
        this.#trySend(() => this.#engine?.sendChunk({ ...msg.chunk, payload: new Uint8Array(msg.chunk.payload) }));
        break;
    }
  }

  // Fire-and-forget sends while disconnected are dropped: the flow that made them resumes on reconnect.
  #trySend(send: () => void): void {
    try {
      send();
    } catch {
      // not connected
    }
  }

  #scheduleFlush(): void {
    if (this.#flushTimer === undefined) {
      this.#flushTimer = this.#clock.setTimeout(() => this.#flush(), FLUSH_EVERY_MS);
    }
  }

  #flushNow(): void {
    if (this.#flushTimer !== undefined) this.#clock.clearTimeout(this.#flushTimer);
    this.#flush();
  }

  #flush(): void {
    this.#flushTimer = undefined;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length > 0) this.#port.postMessage({ type: 'messages', batch });
    const chunks = this.#chunkQueue;
    this.#chunkQueue = [];
    if (chunks.length > 0) {
      const bridged: BridgedChunk[] = chunks.map((c) => ({ flowId: c.flowId, seq: c.seq, timestamp: c.timestamp, flags: c.flags, payload: ownBuffer(c.payload) }));
      this.#port.postMessage({ type: 'chunks', batch: bridged }, bridged.map((c) => c.payload));
    }
  }

  #stopEngine(): void {
    for (const sub of this.#requests.values()) sub.unsubscribe();
    this.#requests.clear();
    this.#engine?.stop();
    for (const sub of this.#engineSubs) sub.unsubscribe();
    this.#engineSubs = [];
    this.#engine = undefined;
  }
}
