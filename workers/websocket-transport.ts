import type { TransportFactory } from '../protocol/index.ts';

/** The protocol engine's transport over the browser's WebSocket (available in workers). */
export const browserWebSocketTransport: TransportFactory = (url, subprotocols, sink) => {
  const ws = new WebSocket(url, [...subprotocols]);
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => sink.onOpen(ws.protocol);
  ws.onmessage = (ev: MessageEvent<string | ArrayBuffer>) => sink.onFrame(typeof ev.data === 'string' ? ev.data : new Uint8Array(ev.data));
  ws.onclose = (ev) => sink.onClose(ev.code, ev.reason);
  return {
    send: (frame) => ws.send(frame),
    close: (code, reason) => ws.close(code, reason),
  };
};
