/** Opaque handle of a scheduled timer. */
export type TimerHandle = unknown;

/** Time source and timer scheduler, injected so tests run on fake time. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

interface TimerGlobals {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

// protocol/ compiles without DOM or Node typings, so the host's timer functions are reached through a
// narrow view of globalThis; this is the only place in protocol/ that touches real time.
const host = globalThis as unknown as TimerGlobals;

/** The host's real clock (browser, worker or Node). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => host.setTimeout(fn, ms),
  clearTimeout: (handle) => host.clearTimeout(handle),
};
