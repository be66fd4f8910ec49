import type { WebSocket } from 'ws';
import { type Codec, codecFor, type Corkable, DecodeError, type Envelope, turnCorker } from '../../protocol/index.ts';

// A socket whose unsent bytes exceed this is too slow for live updates; droppable messages are skipped
// rather than queued, so one slow console cannot grow the gateway's memory.
const DROP_LIVE_ABOVE_BYTES = 1024 * 1024;
/**
 * Unsent bytes past which a peer has stopped reading: replies and chunks are not droppable, so rather
 * than let its queue grow the connection is cut, and the client reconnects (with backoff) and reloads. Far above anything a reading peer queues: a transfer window is 1 MiB, a live frame 256 KiB.
 */
export const CLOSE_SLOW_ABOVE_BYTES = 16 * 1024 * 1024;

/** Traffic counters of every socket of this process, read by /metrics. Plain numbers: counting is on the hot path. */
export const peerTraffic = {
  /** Envelopes received, by command id. */
  in: new Map<number, number>(),
  /** Envelopes sent, by command id. */
  out: new Map<number, number>(),
  /** Binary chunk frames relayed. */
  chunks: 0,
  /** Live messages skipped because the socket was backed up. */
  liveDropped: 0,
  /** Sockets closed for not reading (past CLOSE_SLOW_ABOVE_BYTES). */
  slowClosed: 0,
};

const bump = (m: Map<number, number>, id: number) => m.set(id, (m.get(id) ?? 0) + 1);

// On loopback a write costs a system call that also runs the receiver's TCP path (most of the gateway's
// CPU in the round-trip bench), so a console hearing many replies in one turn gets them in one write.
// setImmediate runs right after this turn's poll phase: replies wait for no timer, only for the other
// callbacks of the same turn.
const corkForThisTurn = turnCorker(setImmediate);

/** One accepted socket with its negotiated codec. */
export class Peer {
  readonly ws: WebSocket;
  readonly codec: Codec;
  readonly #batch: Corkable | undefined;

  /**
   * `batchWrites`: the socket under `ws`; frames sent to it in one turn of the event loop then go out in
   * one write. Worth it where many messages meet on one socket (a console hearing many devices).
   */
  constructor(ws: WebSocket, batchWrites?: Corkable) {
    this.ws = ws;
    this.#batch = batchWrites;
    this.codec = codecFor(ws.protocol);
    // ws reports protocol violations (oversize frames, bad opcodes) as 'error' and then closes the
    // socket with the matching code; without a listener the error would take the whole process down.
    ws.on('error', () => undefined);
  }

  /** Sends an envelope; a `live` one is dropped when the socket is backed up. Returns false when not sent. */
  send(env: Envelope, live = false): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    if (live && this.ws.bufferedAmount > DROP_LIVE_ABOVE_BYTES) {
      peerTraffic.liveDropped++;
      return false;
    }
    if (this.#stalled()) return false;
    if (this.#batch) corkForThisTurn(this.#batch);
    this.ws.send(this.codec.encode(env));
    bump(peerTraffic.out, env.msgId);
    return true;
  }

  /** Sends an already encoded binary frame (a relayed chunk); false when the socket is not open. */
  sendRaw(frame: Uint8Array): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    if (this.#stalled()) return false;
    if (this.#batch) corkForThisTurn(this.#batch);
    this.ws.send(frame, { binary: true });
    peerTraffic.chunks++;
    return true;
  }

  /** Closes a peer that stopped reading; true when it did. */
  #stalled(): boolean {
    if (this.ws.bufferedAmount <= CLOSE_SLOW_ABOVE_BYTES) return false;
    peerTraffic.slowClosed++;
    // A close frame would queue behind the same unread bytes: cut the connection.
    this.ws.terminate();
    return true;
  }

  /** Decodes a received frame, or returns the DecodeError. */
  decode(data: Buffer, isBinary: boolean): Envelope | DecodeError {
    try {
      const env = this.codec.decode(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8'));
      bump(peerTraffic.in, env.msgId);
      return env;
    } catch (err) {
      if (err instanceof DecodeError) return err;
      throw err;
    }
  }
}
