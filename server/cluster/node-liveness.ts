/** How often each node of a cluster says it is alive on the bus. */
export const NODE_BEAT_MS = 5_000;
/**
 * Silence after which a node is taken for dead and its devices are marked offline: three missed beats,
 * far inside the devices' own heartbeat window (300 s), which is the issue's bound.
 */
export const NODE_DEAD_MS = 3 * NODE_BEAT_MS;

/**
 * Which other nodes of the cluster are alive, from their beats. Pure: the caller feeds beats and asks
 * with the time, so tests need no timers.
 */
export class NodeLiveness {
  readonly #lastBeat = new Map<string, number>();
  readonly #deadMs: number;

  constructor(deadMs = NODE_DEAD_MS) {
    this.#deadMs = deadMs;
  }

  /** A beat from `node` at `now`. */
  heard(node: string, now: number): void {
    this.#lastBeat.set(node, now);
  }

  /** `node` left on purpose (it marked its own devices offline): forget it without declaring it dead. */
  left(node: string): void {
    this.#lastBeat.delete(node);
  }

  /** Nodes silent for longer than the limit at `now`; each is returned once, then forgotten. */
  lapsed(now: number): string[] {
    const dead: string[] = [];
    for (const [node, last] of this.#lastBeat) {
      if (now - last > this.#deadMs) {
        dead.push(node);
        this.#lastBeat.delete(node);
      }
    }
    return dead;
  }

  /** Nodes heard from and not yet lapsed. */
  alive(): string[] {
    return [...this.#lastBeat.keys()];
  }
}
