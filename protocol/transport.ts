/** A frame as it travels on a WebSocket: text or binary. */
export type Frame = string | Uint8Array;

/** Callbacks a transport reports to. A transport calls onClose exactly once. */
export interface TransportSink {
  onOpen(subprotocol: string): void;
  onFrame(frame: Frame): void;
  /**
   * `retryAfterMs`: the server refused the upgrade with 503 and `Retry-After` (LIFE-2), the return it gave;
   * transports that cannot see the HTTP answer (a browser's WebSocket) never pass it.
   */
  onClose(code: number, reason: string, retryAfterMs?: number): void;
}

/** One live socket. */
export interface TransportHandle {
  send(frame: Frame): void;
  close(code?: number, reason?: string): void;
}

/** Opens a socket to `url` offering `subprotocols`; browser WebSocket, Node `ws` and test fakes implement it. */
export type TransportFactory = (url: string, subprotocols: readonly string[], sink: TransportSink) => TransportHandle;
