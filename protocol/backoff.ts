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
 * The latest return a device honours from a server that refused its upgrade with 503 and `Retry-After`
 * (LIFE-2); a server gives none later. A longer one is taken as this: a device never goes quiet for hours
 * on one answer.
 */
export const MAX_RETRY_AFTER_MS = 300_000;

/**
 * Delay before the attempt after an upgrade refused with 503 and `Retry-After: retryAfterMs` (LIFE-2): the
 * server's return, capped at MAX_RETRY_AFTER_MS, plus up to a second of jitter, since the header counts
 * whole seconds and the devices given one second would otherwise all come back at its start.
 */
export function returnDelay(retryAfterMs: number, random: () => number): number {
  return Math.round(Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS) + random() * 1_000);
}

/**
 * Delay before the next attempt after a close: the server's return when its 503 gave one (LIFE-2), else
 * attempt `attempt`'s backoff. The attempt counts either way, so a later failure without a return backs
 * off from where this one left it.
 */
export function reconnectDelay(attempt: number, retryAfterMs: number | undefined, policy: BackoffPolicy, random: () => number): number {
  return retryAfterMs === undefined ? backoffDelay(attempt, policy, random) : returnDelay(retryAfterMs, random);
}

/**
 * The return a refused upgrade's answer gives, in ms: only a 503's `Retry-After` in whole seconds (the
 * form the gateway sends); any other answer, or a date, gives none and the device backs off as usual.
 */
export function retryAfterOf(status: number | undefined, header: string | readonly string[] | undefined): number | undefined {
  if (status !== 503 || typeof header !== 'string' || !/^\s*\d{1,9}\s*$/.test(header)) return undefined;
  return Number(header) * 1_000;
}

/**
 * Delay before reconnect attempt `attempt` (0-based): uniform over [initialMs, ceiling] with full jitter,
 * where the ceiling doubles from 2 x initialMs and is capped at maxMs; never below initialMs.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.max(policy.initialMs, Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt + 1, 30)));
  return Math.round(ceiling - policy.jitter * random() * (ceiling - policy.initialMs));
}
