import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import WebSocket from 'ws';
import { BufferChurn, retryAfterOf, type TransportFactory, turnCorker, useNativeCrc32, useNativeSha256 } from '../protocol/index.ts';
import { youngCollection } from './young-collection.ts';

/** Options of Node sockets; `localAddress` spreads a large simulated fleet over loopback source addresses. */
export interface WsTransportOptions {
  readonly localAddress?: string;
  /**
   * Frames sent in one turn of the event loop leave in one write (the socket is corked until
   * setImmediate). For load generators: on loopback each write is a system call that also runs the
   * receiver's TCP path, so one process cannot send 100,000 single-frame writes a second.
   */
  readonly batchWrites?: boolean;
}

// Sockets written to in this turn, uncorked together once the turn's I/O callbacks have run.
const corkForThisTurn = turnCorker(setImmediate);

/**
 * Binary frames received (the socket read, ws joining a frame that spans two reads) and sent (the
 * encoded chunk, and ws's masked copy of it) are each a buffer of their own that dies at once: a young
 * collection every few MiB frees them before V8 answers their external memory with full collections
 * (buffer-churn.ts). Text frames are strings on the JS heap, which V8 collects on its own.
 */
let churn: BufferChurn | undefined;

/** Bytes hashed per turn of the event loop: a large file does not hold up the other sockets of the process. */
const SHA256_SLICE = 4 * 1024 * 1024;

/** SHA-256 with Node's own hash over the bytes in place, a slice per turn (useNativeSha256 says why). */
export async function nodeSha256(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += SHA256_SLICE) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(at, at + SHA256_SLICE));
  }
  return hash.digest('hex');
}

/**
 * Ends a client socket whose upgrade the server answered with anything but 101 (ws leaves the aborting to
 * its listener) and keeps the return a 503's `Retry-After` gave (LIFE-2): read it when the socket closes.
 */
export function refusalReturn(ws: WebSocket): () => number | undefined {
  let retryAfterMs: number | undefined;
  ws.on('unexpected-response', (_req, res) => {
    retryAfterMs = retryAfterOf(res.statusCode, res.headers['retry-after']);
    ws.terminate();
  });
  return () => retryAfterMs;
}

/** The protocol engine's transport over the `ws` package, for the agent, simulator and Node tests. */
export function wsTransport(options: WsTransportOptions = {}): TransportFactory {
  // Chunk frames carry a CRC-32 each way: Node's own is an order faster than protocol/'s portable loop.
  useNativeCrc32(zlib.crc32);
  useNativeSha256(nodeSha256);
  const binaryChurn = (churn ??= new BufferChurn(youngCollection()));
  return (url, subprotocols, sink) => {
    const ws = new WebSocket(url, [...subprotocols], { localAddress: options.localAddress, handshakeTimeout: 10_000 });
    ws.on('open', () => sink.onOpen(ws.protocol));
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) binaryChurn.add(data.length);
      sink.onFrame(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'));
    });
    const retryAfter = refusalReturn(ws);
    ws.on('close', (code, reason) => sink.onClose(code, reason.toString(), retryAfter()));
    // 'close' always follows 'error'; the connection state machine acts on close.
    ws.on('error', () => undefined);
    const batch = options.batchWrites === true;
    return {
      send: (frame) => {
        // ws keeps the connected socket in `_socket` (ws 8); it has no public handle on it.
        const socket = batch ? (ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket : undefined;
        if (socket) corkForThisTurn(socket);
        ws.send(frame);
        if (typeof frame !== 'string') binaryChurn.add(frame.length);
      },
      close: (code, reason) => {
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(code, reason);
      },
    };
  };
}
