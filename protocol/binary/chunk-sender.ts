import { type Chunk, ChunkFlag } from './chunk-frame.ts';
import type { TransferManifest, TransferProgress } from './chunk-receiver.ts';

/**
 * Cuts bytes into chunks and keeps at most `window` of them unacknowledged, so a slow receiver holds
 * back the sender instead of filling socket buffers. Acknowledgements are cumulative ("everything before
 * `next` is in"), which also makes resuming after a reconnect a matter of rewinding to `next`.
 */
export class ChunkSender {
  readonly manifest: TransferManifest;
  readonly #bytes: Uint8Array;
  readonly #window: number;
  readonly #chunks: number;
  #acked = 0;
  #sent = 0;

  constructor(flowId: string, bytes: Uint8Array, chunkSize: number, window: number) {
    if (window < 1) throw new RangeError('window must be at least 1');
    this.manifest = { flowId, size: bytes.length, chunkSize };
    this.#bytes = bytes;
    this.#window = window;
    this.#chunks = Math.max(1, Math.ceil(bytes.length / chunkSize));
  }

  /** Chunks that may go out now, within the window. */
  take(): Chunk[] {
    const out: Chunk[] = [];
    const { flowId, chunkSize } = this.manifest;
    while (this.#sent < this.#chunks && this.#sent - this.#acked < this.#window) {
      const seq = this.#sent++;
      const start = seq * chunkSize;
      out.push({
        flowId,
        seq,
        timestamp: start,
        flags: seq === this.#chunks - 1 ? ChunkFlag.Last : 0,
        payload: this.#bytes.subarray(start, Math.min(start + chunkSize, this.#bytes.length)),
      });
    }
    return out;
  }

  /** The receiver has everything before `next`; stale or impossible acknowledgements are ignored. */
  ack(next: number): void {
    if (next > this.#acked && next <= this.#sent) this.#acked = next;
  }

  /** After a reconnect: the receiver reports `next`; everything from there is sent again. */
  resumeFrom(next: number): void {
    this.#acked = Math.min(Math.max(0, next), this.#chunks);
    this.#sent = this.#acked;
  }

  get done(): boolean {
    return this.#acked === this.#chunks;
  }

  get inFlight(): number {
    return this.#sent - this.#acked;
  }

  get progress(): TransferProgress {
    const bytes = Math.min(this.#acked * this.manifest.chunkSize, this.manifest.size);
    return { bytes, total: this.manifest.size, next: this.#acked, chunks: this.#chunks };
  }
}
