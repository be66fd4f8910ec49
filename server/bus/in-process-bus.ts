import type { Bus, BusMessage } from './bus.ts';

/** The bus of a single node: delivery is synchronous and local. */
export class InProcessBus implements Bus {
  readonly shared = false;
  readonly #handlers = new Map<string, Set<(message: BusMessage) => void>>();

  publish(subject: string, message: BusMessage): void {
    for (const handler of this.#handlers.get(subject) ?? []) handler(message);
  }

  subscribe(subject: string, handler: (message: BusMessage) => void): () => void {
    let set = this.#handlers.get(subject);
    if (!set) {
      set = new Set();
      this.#handlers.set(subject, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0) this.#handlers.delete(subject);
    };
  }

  async close(): Promise<void> {
    this.#handlers.clear();
  }
}
