/** Reconnect delay tuning. The spec starts at 2 s and caps at 30 s. */
export interface BackoffPolicy {
  /** The shortest delay (the spec's 2 s). */
  readonly initialMs: number;
  readonly maxMs: number;
  /**
   * How much of each attempt's window [initialMs, ceiling] is randomised: 1 is full jitter (uniform over
   * the window), 0 none (always the ceiling). Full jitter spreads a restarted server's returning fleet
   * evenly instead of bringing it back in waves.
   */
  readonly jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 2_000, maxMs: 30_000, jitter: 1 };

/**
 * Delay before reconnect attempt `attempt` (0-based): uniform over [initialMs, ceiling] with full jitter,
 * where the ceiling doubles from 2 x initialMs and is capped at maxMs; never below initialMs.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.max(policy.initialMs, Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt + 1, 30)));
  return Math.round(ceiling - policy.jitter * random() * (ceiling - policy.initialMs));
}
