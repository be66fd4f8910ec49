import type { WebSocket } from 'ws';
import { type Codec, codecFor, DecodeError, type Envelope } from '../../protocol/index.ts';

// A socket whose unsent bytes exceed this is too slow for live updates; droppable messages are skipped
// rather than queued, so one slow console cannot grow the gateway's memory.
const DROP_LIVE_ABOVE_BYTES = 1024 * 1024;

/** One accepted socket with its negotiated codec. */
export class Peer {
  readonly ws: WebSocket;
  readonly codec: Codec;

  constructor(ws: WebSocket) {
    this.ws = ws;
    this.codec = codecFor(ws.protocol);
    // ws reports protocol violations (oversize frames, bad opcodes) as 'error' and then closes the
    // socket with the matching code; without a listener the error would take the whole process down.
    ws.on('error', () => undefined);
  }

  /** Sends an envelope; a `live` one is dropped when the socket is backed up. Returns false when not sent. */
  send(env: Envelope, live = false): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    if (live && this.ws.bufferedAmount > DROP_LIVE_ABOVE_BYTES) return false;
    this.ws.send(this.codec.encode(env));
    return true;
  }

  /** Sends an already encoded binary frame (a relayed chunk); false when the socket is not open. */
  sendRaw(frame: Uint8Array): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    this.ws.send(frame, { binary: true });
    return true;
  }

  /** Decodes a received frame, or returns the DecodeError. */
  decode(data: Buffer, isBinary: boolean): Envelope | DecodeError {
    try {
      return this.codec.decode(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'));
    } catch (err) {
      if (err instanceof DecodeError) return err;
      throw err;
    }
  }
}
