import { type BackoffPolicy, DEFAULT_BACKOFF, reconnectDelay } from './backoff.ts';
import type { Clock, TimerHandle } from './clock.ts';
import { CloseCode, isTerminalClose } from './close-codes.ts';
import { ConnectionLostError, ErrorCode } from './errors.ts';
import type { Frame, TransportFactory, TransportHandle } from './transport.ts';

/** Where a connection is in its life. `stopped` with reason `rejected` never reconnects by itself. */
export type ConnectionState =
  | { readonly status: 'idle' }
  | { readonly status: 'connecting'; readonly attempt: number }
  | { readonly status: 'open'; readonly subprotocol: string }
  | { readonly status: 'backoff'; readonly attempt: number; readonly delayMs: number }
  | { readonly status: 'stopped'; readonly reason: 'closed' | 'rejected'; readonly closeCode?: number };

/** Timing of a connection; defaults follow the spec (heartbeat 300 s, check 10 s, backoff 2-30 s). */
export interface ConnectionTuning {
  readonly heartbeatMs: number;
  readonly checkMs: number;
  /** A connection open at least this long counts as stable: the next reconnect starts from the initial delay. */
  readonly stableMs: number;
  readonly backoff: BackoffPolicy;
}

export const DEFAULT_TUNING: ConnectionTuning = {
  heartbeatMs: 300_000,
  checkMs: 10_000,
  stableMs: 10_000,
  backoff: DEFAULT_BACKOFF,
};

export interface ConnectionOptions {
  /** Called at each attempt, so a refreshed token is picked up. */
  readonly url: () => string;
  readonly subprotocols: readonly string[];
  readonly transport: TransportFactory;
  readonly clock: Clock;
  readonly random: () => number;
  readonly tuning: ConnectionTuning;
  /** The frame to send when a heartbeat is due, encoded for the negotiated subprotocol. */
  readonly heartbeat: (subprotocol: string) => Frame;
  readonly onState: (state: ConnectionState) => void;
  readonly onFrame: (frame: Frame) => void;
}

/**
 * A self-healing socket: connects, sends heartbeats, notices a silent peer through a wall-clock deadline
 * (timers may be throttled in background tabs), and reconnects with jittered backoff until told to stop
 * or until the server rejects the credentials.
 */
export class Connection {
  readonly #opts: ConnectionOptions;
  #state: ConnectionState = { status: 'idle' };
  #handle: TransportHandle | undefined;
  #timer: TimerHandle | undefined;
  #attempt = 0;
  #openedAt = 0;
  #lastRx = 0;
  #lastTx = 0;

  constructor(opts: ConnectionOptions) {
    this.#opts = opts;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Starts connecting; a no-op while already connecting, open or backing off. */
  start(): void {
    if (this.#state.status === 'idle' || this.#state.status === 'stopped') {
      this.#attempt = 0;
      this.#connect();
    }
  }

  /** Closes the socket and stops reconnecting. */
  stop(): void {
    this.#clearTimer();
    const handle = this.#handle;
    this.#handle = undefined;
    handle?.close(CloseCode.Normal, 'client stop');
    this.#setState({ status: 'stopped', reason: 'closed' });
  }

  /** Sends a frame on the open socket; throws ConnectionLostError when not open. */
  send(frame: Frame): void {
    if (this.#state.status !== 'open' || !this.#handle) throw new ConnectionLostError(ErrorCode.NotConnected);
    this.#handle.send(frame);
    this.#lastTx = this.#opts.clock.now();
  }

  #connect(): void {
    this.#setState({ status: 'connecting', attempt: this.#attempt });
    // Each socket gets its own sink; callbacks from a socket we have already replaced are ignored.
    const handle: TransportHandle = this.#opts.transport(this.#opts.url(), this.#opts.subprotocols, {
      onOpen: (subprotocol) => {
        if (this.#handle !== handle) return;
        const now = this.#opts.clock.now();
        this.#openedAt = now;
        this.#lastRx = now;
        this.#lastTx = now;
        this.#setState({ status: 'open', subprotocol });
        this.#schedule(this.#opts.tuning.checkMs);
      },
      onFrame: (frame) => {
        if (this.#handle !== handle) return;
        this.#lastRx = this.#opts.clock.now();
        this.#opts.onFrame(frame);
      },
      onClose: (code, _reason, retryAfterMs) => {
        if (this.#handle !== handle) return;
        this.#handle = undefined;
        this.#onClosed(code, retryAfterMs);
      },
    });
    this.#handle = handle;
  }

  /** `retryAfterMs`: the return a server gave with its 503, honoured instead of this attempt's backoff (LIFE-2). */
  #onClosed(code: number, retryAfterMs?: number): void {
    this.#clearTimer();
    if (isTerminalClose(code)) {
      this.#setState({ status: 'stopped', reason: 'rejected', closeCode: code });
      return;
    }
    const wasStable = this.#state.status === 'open' && this.#opts.clock.now() - this.#openedAt >= this.#opts.tuning.stableMs;
    this.#attempt = wasStable ? 0 : this.#attempt + 1;
    const delayMs = reconnectDelay(this.#attempt, retryAfterMs, this.#opts.tuning.backoff, this.#opts.random);
    this.#setState({ status: 'backoff', attempt: this.#attempt, delayMs });
    this.#timer = this.#opts.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#connect();
    }, delayMs);
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#state.status !== 'open' || !this.#handle) return;
    const { heartbeatMs, checkMs } = this.#opts.tuning;
    const now = this.#opts.clock.now();
    // The peer answers every heartbeat, so silence for a heartbeat period plus two checks means a dead link.
    if (now - this.#lastRx > heartbeatMs + 2 * checkMs) {
      const handle = this.#handle;
      this.#handle = undefined;
      handle.close(CloseCode.GoingAway, 'heartbeat timeout');
      this.#onClosed(CloseCode.GoingAway);
      return;
    }
    if (now - this.#lastTx >= heartbeatMs) this.send(this.#opts.heartbeat(this.#state.subprotocol));
    this.#schedule(checkMs);
  }

  #schedule(ms: number): void {
    this.#clearTimer();
    this.#timer = this.#opts.clock.setTimeout(() => this.#tick(), ms);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#opts.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #setState(state: ConnectionState): void {
    this.#state = state;
    this.#opts.onState(state);
  }
}
