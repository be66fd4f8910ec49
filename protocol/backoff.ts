/** Reconnect delay tuning. The spec starts at 2 s and caps at 30 s. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Fraction of the delay that is randomised, so a restarted server is not hit by every client at once. */
  readonly jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 2_000, maxMs: 30_000, jitter: 0.5 };

/** Delay before reconnect attempt `attempt` (0-based): doubling from initialMs, capped at maxMs, jittered downward but never below initialMs. */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  const jittered = ceiling * (1 - policy.jitter * random());
  return Math.max(policy.initialMs, Math.round(jittered));
}
