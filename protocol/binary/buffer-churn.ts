/**
 * Bytes of chunk frames a Node host moves between two young-generation collections it asks for. In the
 * gateway bench (8 MiB each way, 3 rounds) 1 MiB left the fewest full collections during transfers and
 * the least CPU per MiB relayed (2 and 4 MiB let more through: the dead buffers of a window or two are
 * enough to tip V8's heuristics); each collection it asks for took a median 0.85 ms on a loaded machine.
 */
export const CHURN_COLLECT_EVERY_BYTES = 1024 * 1024;

/**
 * Counts the bytes of short-lived buffers a process churns through (chunk frames relayed, received,
 * sent) and asks the JS engine for a young-generation collection every `everyBytes`.
 *
 * Why: V8 counts the backing store of every ArrayBuffer as external memory until a collection finds it
 * dead. A transfer allocates one or two fresh buffers per 64 KiB chunk (the socket read, ws joining a
 * frame that spans two reads, ws masking a client frame into a copy) and almost nothing on the JS heap,
 * so no young collection comes along to free them; the external total grows until V8 answers it with a
 * full mark-compact collection of the whole heap (90 MB in the gateway: 100-300 ms each, one per
 * 10-20 MiB relayed, about 60% of the gateway's CPU during a transfer). The buffers are young and dead
 * once relayed, so a young collection frees them at the cost of the few live young objects.
 *
 * `collect` is the host's way to ask (Node: `youngCollection()` of the agent's and server's hosts);
 * without one (a browser) counting does nothing.
 */
export class BufferChurn {
  readonly #collect: (() => void) | undefined;
  readonly #every: number;
  #since = 0;

  constructor(collect: (() => void) | undefined, everyBytes = CHURN_COLLECT_EVERY_BYTES) {
    this.#collect = collect;
    this.#every = everyBytes;
  }

  /** Counts `bytes` more; asks for a collection once `everyBytes` have gone by since the last. */
  add(bytes: number): void {
    if (this.#collect === undefined) return;
    this.#since += bytes;
    if (this.#since < this.#every) return;
    this.#since = 0;
    this.#collect();
  }
}
