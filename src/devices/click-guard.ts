/**
 * Repeated clicks of one command on one device within this window are refused with 'You click too
 * frequently！' (devices-and-commerce section 8). One second matches the spec's 1000 ms constant and is
 * longer than a double click, shorter than a deliberate retry.
 */
export const CLICK_GUARD_MS = 1_000;

/** Remembers the last click of each (command, target) so that repeated clicks are refused. */
export class ClickGuard {
  readonly #last = new Map<string, number>();
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(windowMs = CLICK_GUARD_MS, now: () => number = () => performance.now()) {
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** True when the click may go ahead (and records it); false when it repeats one too soon. */
  allow(key: string): boolean {
    const now = this.#now();
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.#windowMs) return false;
    this.#last.set(key, now);
    return true;
  }
}
