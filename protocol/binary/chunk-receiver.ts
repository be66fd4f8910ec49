import { DecodeError } from '../errors.ts';
import type { Chunk } from './chunk-frame.ts';

/** What a receiver expects of a transfer, announced by the sender before the first chunk. */
export interface TransferManifest {
  readonly flowId: string;
  readonly size: number;
  readonly chunkSize: number;
}

/** Progress of one transfer. `next` is the first chunk not yet received: everything before it is in. */
export interface TransferProgress {
  readonly bytes: number;
  readonly total: number;
  readonly next: number;
  readonly chunks: number;
}

/**
 * Reassembles one transfer from chunks that may arrive out of order, twice, or after a reconnect. Each
 * chunk's place is fixed by its sequence number, so any split of the delivery reassembles the same bytes.
 */
export class ChunkReceiver {
  readonly manifest: TransferManifest;
  readonly #buffer: Uint8Array;
  readonly #have: Uint8Array;
  readonly #chunks: number;
  #received = 0;
  #bytes = 0;
  #next = 0;

  constructor(manifest: TransferManifest) {
    if (!Number.isSafeInteger(manifest.size) || manifest.size < 0) throw new RangeError('size must be a non-negative integer');
    if (!Number.isInteger(manifest.chunkSize) || manifest.chunkSize < 1) throw new RangeError('chunkSize must be positive');
    this.manifest = manifest;
    this.#buffer = new Uint8Array(manifest.size);
    this.#chunks = Math.max(1, Math.ceil(manifest.size / manifest.chunkSize));
    this.#have = new Uint8Array(this.#chunks);
  }

  /** Takes one chunk; returns true when it was new. Throws DecodeError when it does not fit the manifest. */
  accept(chunk: Chunk): boolean {
    const { flowId, size, chunkSize } = this.manifest;
    if (chunk.flowId !== flowId) throw new DecodeError(`Chunk of flow ${chunk.flowId} given to ${flowId}`);
    if (chunk.seq >= this.#chunks) throw new DecodeError(`Chunk ${chunk.seq} beyond the last (${this.#chunks - 1})`);
    const offset = chunk.seq * chunkSize;
    const expected = Math.min(chunkSize, size - offset);
    if (chunk.payload.length !== Math.max(0, expected)) throw new DecodeError(`Chunk ${chunk.seq} has ${chunk.payload.length} bytes, expected ${expected}`);
    if (this.#have[chunk.seq]) return false;
    this.#buffer.set(chunk.payload, offset);
    this.#have[chunk.seq] = 1;
    this.#received++;
    this.#bytes += chunk.payload.length;
    while (this.#next < this.#chunks && this.#have[this.#next]) this.#next++;
    return true;
  }

  get progress(): TransferProgress {
    return { bytes: this.#bytes, total: this.manifest.size, next: this.#next, chunks: this.#chunks };
  }

  get complete(): boolean {
    return this.#received === this.#chunks;
  }

  /** The reassembled bytes; only once complete. */
  bytes(): Uint8Array {
    if (!this.complete) throw new Error('Transfer incomplete');
    return this.#buffer;
  }
}
