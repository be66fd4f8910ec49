import type { Frame, TransportFactory, TransportSink } from '../transport.ts';

/** The far end of one fake socket, driven by a test. */
export class FakeSocket {
  readonly url: string;
  readonly subprotocols: readonly string[];
  readonly sent: Frame[] = [];
  closed: { code: number; reason: string } | undefined;
  readonly #sink: TransportSink;

  constructor(url: string, subprotocols: readonly string[], sink: TransportSink) {
    this.url = url;
    this.subprotocols = subprotocols;
    this.#sink = sink;
  }

  /** The server accepts the connection with `subprotocol`. */
  accept(subprotocol = subprotocols0(this.subprotocols)): void {
    this.#sink.onOpen(subprotocol);
  }

  /** The server sends a frame. */
  deliver(frame: Frame): void {
    this.#sink.onFrame(frame);
  }

  /** The server (or the network) closes the socket. */
  drop(code = 1006, reason = ''): void {
    if (this.closed) return;
    this.closed = { code, reason };
    this.#sink.onClose(code, reason);
  }

  /** The server refuses the upgrade with 503 and `Retry-After: retryAfterMs / 1000` (LIFE-2). */
  refuse(retryAfterMs: number): void {
    if (this.closed) return;
    this.closed = { code: 1006, reason: 'HTTP 503' };
    this.#sink.onClose(1006, 'HTTP 503', retryAfterMs);
  }

  /** Called by the client side. */
  clientClose(code: number, reason: string): void {
    this.closed ??= { code, reason };
  }
}

function subprotocols0(list: readonly string[]): string {
  return list[0] ?? '';
}

/** A transport factory that records every socket it opens, for tests to drive by hand. */
export class FakeNetwork {
  readonly sockets: FakeSocket[] = [];
  #waiters: (() => void)[] = [];

  /** Resolves when any socket of this network next sends a frame (no polling, no sleeps). */
  nextSend(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  readonly factory: TransportFactory = (url, subprotocols, sink) => {
    const socket = new FakeSocket(url, subprotocols, sink);
    this.sockets.push(socket);
    return {
      send: (frame) => {
        if (socket.closed) throw new Error('send on closed fake socket');
        socket.sent.push(frame);
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const w of waiters) w();
      },
      close: (code = 1000, reason = '') => socket.clientClose(code, reason),
    };
  };

  /** The most recently opened socket. */
  get last(): FakeSocket {
    const socket = this.sockets.at(-1);
    if (!socket) throw new Error('no socket opened yet');
    return socket;
  }
}
