import type { Clock, TimerHandle } from '../clock.ts';

interface Scheduled {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** A clock whose time moves only when a test advances it. Timers fire in due order. */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers = new Map<number, Scheduled>();

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  /** Timers still scheduled. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, including ones scheduled meanwhile. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: Scheduled | undefined;
      for (const t of this.#timers.values()) {
        if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.id < next.id))) next = t;
      }
      if (!next) break;
      this.#timers.delete(next.id);
      this.#now = next.at;
      next.fn();
    }
    this.#now = end;
  }
}
