import type { Clock } from '../../protocol/index.ts';

/** Consecutive failed logins that lock an account, and for how long. */
export const MAX_FAILURES = 5;
export const LOCK_MS = 15 * 60_000;

/**
 * Locks an account after repeated wrong passwords, so guessing is slow even from many addresses (the
 * per-address request limit does not stop a spread-out attack). Held per node, in memory: a restart
 * forgives. The trade-off: someone who knows an account name can keep it locked; the lock is short.
 */
export class LoginGuard {
  readonly #failures = new Map<string, { count: number; lockedUntil: number }>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Minutes left on the account's lock, or 0 when it may try. */
  lockedMinutes(account: string): number {
    const entry = this.#failures.get(account.toLowerCase());
    const left = entry ? entry.lockedUntil - this.#clock.now() : 0;
    return left > 0 ? Math.ceil(left / 60_000) : 0;
  }

  failed(account: string): void {
    const key = account.toLowerCase();
    const entry = this.#failures.get(key) ?? { count: 0, lockedUntil: 0 };
    if (entry.lockedUntil <= this.#clock.now() && entry.count >= MAX_FAILURES) entry.count = 0;
    entry.count++;
    if (entry.count >= MAX_FAILURES) entry.lockedUntil = this.#clock.now() + LOCK_MS;
    this.#failures.set(key, entry);
  }

  succeeded(account: string): void {
    this.#failures.delete(account.toLowerCase());
  }
}
