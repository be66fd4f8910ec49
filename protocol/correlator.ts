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
  deadline: number;
  /** Who alone may answer (the socket or device the request went to); undefined: anyone. */
  readonly owner: unknown;
}

/**
 * Requests with the same timeout expire in the order they were registered, so one FIFO per timeout
 * value and one timer at its head replace a timer per request. Entries are deleted lazily: a slot whose
 * request is gone, or whose deadline moved (progress), is skipped when it reaches the head.
 */
class ExpiryQueue {
  readonly timeoutMs: number;
  cids: string[] = [];
  deadlines: number[] = [];
  head = 0;
  timer: TimerHandle | undefined;

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
  }

  push(cid: string, deadline: number): void {
    this.cids.push(cid);
    this.deadlines.push(deadline);
  }

  get size(): number {
    return this.cids.length - this.head;
  }

  clear(): void {
    if (this.cids.length === 0) return;
    this.cids = [];
    this.deadlines = [];
    this.head = 0;
  }

  shift(): void {
    this.head++;
    // Compact once the consumed prefix dominates, keeping pushes and shifts O(1) amortised.
    if (this.head > 1024 && this.head * 2 > this.cids.length) {
      this.cids = this.cids.slice(this.head);
      this.deadlines = this.deadlines.slice(this.head);
      this.head = 0;
    }
  }
}

/** Matches replies to pending requests by correlation id, each with its own timeout. */
export class Correlator {
  readonly #pending = new Map<string, Pending>();
  readonly #queues = new Map<number, ExpiryQueue>();
  readonly #clock: Clock;
  readonly #keepArmed: boolean;

  /**
   * `keepArmed`: when the last request settles, the expiry timers stay armed (their queues emptied)
   * instead of being cleared, and fire once, find nothing, and lapse. For a busy correlator whose requests
   * settle within a millisecond (the gateway's commands to devices), clearing on every return to idle
   * re-armed a timer for nearly every request. `failAll` still clears them: stopping leaves no timer.
   */
  constructor(clock: Clock, options: { readonly keepArmed?: boolean } = {}) {
    this.#clock = clock;
    this.#keepArmed = options.keepArmed === true;
  }

  /** Number of requests still waiting for a final reply. */
  get size(): number {
    return this.#pending.size;
  }

  /** True while `cid` waits for its final reply. */
  has(cid: string): boolean {
    return this.#pending.has(cid);
  }

  /**
   * Starts waiting for the reply to `cid`; the handlers hear exactly one of result or error. With an
   * `owner`, only a reply resolved with that same owner counts: one correlator serves many sockets,
   * and a peer must not answer a request sent to another.
   */
  register(cid: string, msgId: number, timeoutMs: number, handlers: PendingHandlers, owner?: unknown): void {
    if (this.#pending.has(cid)) throw new Error(`Duplicate correlation id ${cid}`);
    const deadline = this.#clock.now() + timeoutMs;
    this.#pending.set(cid, { msgId, handlers, timeoutMs, deadline, owner });
    this.#enqueue(cid, timeoutMs, deadline);
  }

  /**
   * Routes a reply to its pending request; returns false when no request waits for it, or when the
   * request has an owner and `from` is not it (the reply is ignored: the request still waits).
   */
  resolve(reply: Envelope, from?: unknown): boolean {
    if (reply.cid === undefined) return false;
    const entry = this.#pending.get(reply.cid);
    if (!entry || (entry.owner !== undefined && entry.owner !== from)) return false;
    if (reply.result === Result.Pushing) {
      // Progress restarts the timeout: a long push is alive as long as it reports.
      entry.deadline = this.#clock.now() + entry.timeoutMs;
      this.#enqueue(reply.cid, entry.timeoutMs, entry.deadline);
      entry.handlers.progress(reply);
      return true;
    }
    this.#delete(reply.cid);
    entry.handlers.result(reply);
    return true;
  }

  /** Fails one pending request with `err`; false when it no longer waits. */
  fail(cid: string, err: Error): boolean {
    const entry = this.#pending.get(cid);
    if (!entry) return false;
    this.#delete(cid);
    entry.handlers.error(err);
    return true;
  }

  /** Forgets a request without telling it (its caller has gone away). */
  cancel(cid: string): void {
    this.#delete(cid);
  }

  /** Fails every pending request (or those `which` selects) with `err`. */
  failAll(err: Error, which?: (cid: string) => boolean): void {
    const failed: PendingHandlers[] = [];
    for (const [cid, entry] of this.#pending) {
      if (which && !which(cid)) continue;
      failed.push(entry.handlers);
      this.#pending.delete(cid);
    }
    if (this.#pending.size === 0) this.#clearQueues();
    for (const handlers of failed) handlers.error(err);
  }

  #enqueue(cid: string, timeoutMs: number, deadline: number): void {
    let queue = this.#queues.get(timeoutMs);
    if (!queue) {
      queue = new ExpiryQueue(timeoutMs);
      this.#queues.set(timeoutMs, queue);
    }
    queue.push(cid, deadline);
    if (queue.timer === undefined) this.#arm(queue, deadline);
  }

  #arm(queue: ExpiryQueue, deadline: number): void {
    queue.timer = this.#clock.setTimeout(() => this.#sweep(queue), Math.max(0, deadline - this.#clock.now()));
  }

  #sweep(queue: ExpiryQueue): void {
    queue.timer = undefined;
    const now = this.#clock.now();
    while (queue.size > 0) {
      const cid = queue.cids[queue.head] as string;
      const deadline = queue.deadlines[queue.head] as number;
      const entry = this.#pending.get(cid);
      if (entry && entry.deadline === deadline) {
        if (deadline > now) {
          this.#arm(queue, deadline);
          return;
        }
        this.#pending.delete(cid);
        queue.shift();
        entry.handlers.error(new RequestTimeoutError(entry.msgId, entry.timeoutMs));
      } else {
        queue.shift();
      }
    }
    this.#queues.delete(queue.timeoutMs);
  }

  #delete(cid: string): void {
    if (!this.#pending.delete(cid) || this.#pending.size !== 0) return;
    if (!this.#keepArmed) return this.#clearQueues();
    // Every queued id is stale now: drop them, keep the timers.
    for (const queue of this.#queues.values()) queue.clear();
  }

  #clearQueues(): void {
    for (const queue of this.#queues.values()) {
      if (queue.timer !== undefined) this.#clock.clearTimeout(queue.timer);
    }
    this.#queues.clear();
  }
}
