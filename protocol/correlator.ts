import type { Clock, TimerHandle } from './clock.ts';
import type { Envelope } from './envelope.ts';
import { Result } from './catalogue/enums.ts';
import { RequestTimeoutError } from './errors.ts';

/** What a pending request hears: progress replies (result 6), then exactly one final reply or error. */
export interface PendingHandlers {
  progress(reply: Envelope): void;
  result(reply: Envelope): void;
  error(err: Error): void;
}

interface Pending {
  readonly msgId: number;
  readonly handlers: PendingHandlers;
  readonly timeoutMs: number;
  timer: TimerHandle;
}

/** Matches replies to pending requests by correlation id, with one timer per request. */
export class Correlator {
  readonly #pending = new Map<string, Pending>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Number of requests still waiting for a final reply. */
  get size(): number {
    return this.#pending.size;
  }

  /** Starts waiting for the reply to `cid`; the handlers hear exactly one of result or error. */
  register(cid: string, msgId: number, timeoutMs: number, handlers: PendingHandlers): void {
    if (this.#pending.has(cid)) throw new Error(`Duplicate correlation id ${cid}`);
    const entry: Pending = { msgId, handlers, timeoutMs, timer: undefined };
    entry.timer = this.#clock.setTimeout(() => this.#expire(cid), timeoutMs);
    this.#pending.set(cid, entry);
  }

  /** Routes a reply to its pending request; returns false when no request waits for it. */
  resolve(reply: Envelope): boolean {
    if (reply.cid === undefined) return false;
    const entry = this.#pending.get(reply.cid);
    if (!entry) return false;
    if (reply.result === Result.Pushing) {
      // Progress restarts the timeout: a long push is alive as long as it reports.
      this.#clock.clearTimeout(entry.timer);
      entry.timer = this.#clock.setTimeout(() => this.#expire(reply.cid as string), entry.timeoutMs);
      entry.handlers.progress(reply);
      return true;
    }
    this.#delete(reply.cid, entry);
    entry.handlers.result(reply);
    return true;
  }

  /** Forgets a request without telling it (its caller has gone away). */
  cancel(cid: string): void {
    const entry = this.#pending.get(cid);
    if (entry) this.#delete(cid, entry);
  }

  /** Fails every pending request with `err`, leaving nothing behind. */
  failAll(err: Error): void {
    const entries = [...this.#pending.values()];
    for (const entry of entries) this.#clock.clearTimeout(entry.timer);
    this.#pending.clear();
    for (const entry of entries) entry.handlers.error(err);
  }

  #expire(cid: string): void {
    const entry = this.#pending.get(cid);
    if (!entry) return;
    this.#pending.delete(cid);
    entry.handlers.error(new RequestTimeoutError(entry.msgId, entry.timeoutMs));
  }

  #delete(cid: string, entry: Pending): void {
    this.#clock.clearTimeout(entry.timer);
    this.#pending.delete(cid);
  }
}
