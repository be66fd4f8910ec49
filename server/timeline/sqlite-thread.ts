import { Worker } from 'node:worker_threads';
import type { TimelineValue } from './tables.ts';

/** What the writing thread is told (server/timeline/sqlite-worker.ts). */
export type ToTimelineThread =
  | { readonly kind: 'write'; readonly seq: number; readonly values: readonly TimelineValue[]; readonly rows: number }
  | { readonly kind: 'close' };

/** One statement's rows that were not written, and why. */
export interface TimelineWriteFailure {
  readonly rows: number;
  readonly message: string;
  readonly code?: string | number | undefined;
}

/** What the writing thread answers: a write committed, with the statements that failed (and were dropped). */
export interface FromTimelineThread {
  readonly seq: number;
  readonly failures: readonly TimelineWriteFailure[];
}

/** What the writing thread starts with. */
export interface TimelineThreadData {
  readonly file: string;
  readonly maxRows: number;
}

/**
 * The timeline's SQLite writes on a thread of their own, with its own connection to the database file: the
 * B-tree work of every entry (the table and its `(sn, sent_at)` index) was about a seventh of the gateway's
 * main-thread CPU per command (docs/DECISIONS.md, "Timeline writes, 2026-11-26"). The main thread only
 * copies each flush's values over. The thread holds the process open only while a write is outstanding.
 */
export class TimelineThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { readonly rows: number; readonly done: (failures: readonly TimelineWriteFailure[]) => void }>();
  #seq = 0;
  #closing = false;
  /** Why the thread is gone, once it is: its writes fail and the writer goes back to its own connection. */
  #dead: Error | undefined;
  readonly #exited: Promise<void>;

  constructor(data: TimelineThreadData) {
    this.#worker = new Worker(new URL('./sqlite-worker.ts', import.meta.url), { workerData: data satisfies TimelineThreadData });
    this.#worker.unref();
    this.#worker.on('message', (m: FromTimelineThread) => {
      const done = this.#waiting.get(m.seq);
      this.#waiting.delete(m.seq);
      if (this.#waiting.size === 0) this.#worker.unref();
      done?.done(m.failures);
    });
    this.#worker.on('error', (err) => this.#fail(err));
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', (code) => {
        if (!this.#closing) this.#fail(new Error(`timeline thread exited (code ${code})`));
        resolve();
      });
    });
  }

  /** Set once the thread has failed or exited unasked. */
  get dead(): Error | undefined {
    return this.#dead;
  }

  /** Writes `rows` entries (their values flat, in TIMELINE_COLUMNS order); resolves once committed. */
  write(values: readonly TimelineValue[], rows: number): Promise<readonly TimelineWriteFailure[]> {
    if (this.#dead || this.#closing) return Promise.resolve([{ rows, message: this.#dead?.message ?? 'timeline thread closed' }]);
    const seq = ++this.#seq;
    const message: ToTimelineThread = { kind: 'write', seq, values, rows };
    this.#worker.ref();
    this.#worker.postMessage(message);
    return new Promise((done) => this.#waiting.set(seq, { rows, done }));
  }

  /** Closes the thread's connection and ends it, after the writes already sent. */
  async close(): Promise<void> {
    if (this.#closing) return this.#exited;
    this.#closing = true;
    this.#worker.ref();
    const message: ToTimelineThread = { kind: 'close' };
    this.#worker.postMessage(message);
    await this.#exited;
  }

  #fail(err: Error): void {
    this.#dead ??= err;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of waiting) w.done([{ rows: w.rows, message: err.message }]);
  }
}
