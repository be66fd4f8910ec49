import { type Bus, type BusLog, consoleBusLog } from './bus.ts';
import { SubjectHandlers } from './handlers.ts';
import type { BusMap, BusSubject, SubjectDecoders } from './subjects.ts';

/**
 * The bus of a single node: delivery is synchronous and local. Messages go through their subject's
 * decoder as on the shared buses, so a handler gets its own copy, of the same shape wherever it runs.
 */
export class InProcessBus<M = BusMap> implements Bus<M> {
  readonly shared = false;
  readonly #handlers: SubjectHandlers<M>;

  constructor(subjects: SubjectDecoders<M>, log: BusLog = consoleBusLog) {
    this.#handlers = new SubjectHandlers(subjects, log);
  }

  publish<K extends keyof M & string>(subject: BusSubject<K>, message: M[K]): void {
    this.#handlers.deliver(subject.name, message);
  }

  subscribe<K extends keyof M & string>(subject: BusSubject<K>, handler: (message: M[K]) => void): () => void {
    this.#handlers.add(subject, handler);
    return () => void this.#handlers.remove(subject, handler);
  }

  async close(): Promise<void> {
    this.#handlers.clear();
  }
}
