import type { BusLog } from './bus.ts';
import { type BusSubject, decodeOn, type SubjectDecoders } from './subjects.ts';

/** A handler as the table runs it: the raw message, decoded by its subject's decoder before the handler sees it. */
export type RawHandler = (raw: unknown) => void;

/**
 * A bus's handlers by exact subject name. Each is wrapped, when it subscribes, with the decoder of its
 * subject's kind: what arrives is checked there (the edge), and a message the decoder refuses is logged
 * and dropped instead of reaching the handler.
 */
export class SubjectHandlers<M> {
  readonly #subjects: SubjectDecoders<M>;
  readonly #log: BusLog;
  readonly #byName = new Map<string, Map<object, RawHandler>>();

  constructor(subjects: SubjectDecoders<M>, log: BusLog) {
    this.#subjects = subjects;
    this.#log = log;
  }

  /** `handler` behind the decoder of `subject`'s kind. */
  wrap<K extends keyof M & string>(subject: BusSubject<K>, handler: (message: M[K]) => void): RawHandler {
    return (raw) => {
      const message = decodeOn(this.#subjects, subject.kind, raw);
      if (message === undefined) this.#log.warn({ subject: subject.name }, 'malformed bus message dropped');
      else handler(message);
    };
  }

  /** Adds a handler; true when it is the subject's first. */
  add<K extends keyof M & string>(subject: BusSubject<K>, handler: (message: M[K]) => void): boolean {
    const run = this.wrap(subject, handler);
    const set = this.#byName.get(subject.name);
    if (set) {
      if (!set.has(handler)) set.set(handler, run);
      return false;
    }
    this.#byName.set(subject.name, new Map([[handler, run]]));
    return true;
  }

  /** Removes a handler; true when the subject has none left. */
  remove(subject: BusSubject, handler: object): boolean {
    const set = this.#byName.get(subject.name);
    if (!set?.delete(handler)) return false;
    if (set.size > 0) return false;
    this.#byName.delete(subject.name);
    return true;
  }

  /** Runs every handler of the subject named `name` on `raw` (each decodes it). */
  deliver(name: string, raw: unknown): void {
    const set = this.#byName.get(name);
    if (set) for (const run of [...set.values()]) run(raw);
  }

  /** True when the subject named `name` has a handler (no copy of them made). */
  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The handlers of the subject named `name`, to run one by one. */
  handlersOf(name: string): RawHandler[] {
    return [...(this.#byName.get(name)?.values() ?? [])];
  }

  names(): IterableIterator<string> {
    return this.#byName.keys();
  }

  clear(): void {
    this.#byName.clear();
  }
}
