import WebSocket from 'ws';
import type { TransportFactory } from '../protocol/index.ts';

/** Options of Node sockets; `localAddress` spreads a large simulated fleet over loopback source addresses. */
export interface WsTransportOptions {
  readonly localAddress?: string;
}

/** The protocol engine's transport over the `ws` package, for the agent, simulator and Node tests. */
export function wsTransport(options: WsTransportOptions = {}): TransportFactory {
  return (url, subprotocols, sink) => {
    const ws = new WebSocket(url, [...subprotocols], { localAddress: options.localAddress, handshakeTimeout: 10_000 });
    ws.on('open', () => sink.onOpen(ws.protocol));
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      sink.onFrame(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'));
    });
    ws.on('close', (code, reason) => sink.onClose(code, reason.toString()));
    // 'close' always follows 'error'; the connection state machine acts on close.
    ws.on('error', () => undefined);
    return {
      send: (frame) => ws.send(frame),
      close: (code, reason) => {
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(code, reason);
      },
    };
  };
}
