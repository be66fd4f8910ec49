import { Command, isDangerousCommand, isRecord } from '../../protocol/index.ts';

/**
 * Console commands a session may send per second, sustained, and in one burst (CONSOLE_COMMAND_RATE,
 * CONSOLE_COMMAND_BURST). The burst is the largest control-by-query selection (10,000 serials), so one bulk
 * action over a whole selection is never cut short; what a flood gains past it is this rate, refused
 * commands costing the gateway no database read and no device traffic (docs/DECISIONS.md).
 */
export const DEFAULT_CONSOLE_COMMAND_RATE = 1_000;
export const DEFAULT_CONSOLE_COMMAND_BURST = 10_000;

/**
 * Commands that disrupt a whole device or wipe what is on it. The same one to the same device (the same
 * app, for clear data) is accepted once per {@link DANGEROUS_COMMAND_GAP_MS}, whoever sends it: a repeat
 * within that time is a double click or a loop, never a second intention. The flag is the catalogue's
 * (`COMMAND_RIGHTS`).
 */
export const DANGEROUS_COMMANDS: ReadonlySet<number> = new Set<number>(Object.values(Command).filter(isDangerousCommand));
/** The console's click guard waits as long between the same command to the same device. */
export const DANGEROUS_COMMAND_GAP_MS = 1_000;

/** A token bucket: `rate` tokens a second up to `burst`, one per command. */
export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  #tokens: number;
  #at: number;

  constructor(rate: number, burst: number, now: number) {
    this.#rate = rate;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
    this.#at = now;
  }

  /** Takes a token; false when there is none left. */
  take(now: number): boolean {
    if (now > this.#at) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) * this.#rate) / 1_000);
      this.#at = now;
    }
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/** A session's command budget, or undefined when the rate is 0 (no limit: the gateway benchmark). */
export function sessionBudget(rate: number, burst: number, now: number): TokenBucket | undefined {
  return rate > 0 ? new TokenBucket(rate, burst > 0 ? burst : rate, now) : undefined;
}

// Accounts whose REST budget is remembered; past it the longest-remembered is forgotten (it starts afresh).
const MAX_ACCOUNT_BUDGETS = 10_000;

/**
 * Command budgets per account for commands sent over HTTP (/device-ops/command): each the size of one
 * console session's (CONSOLE_COMMAND_RATE, CONSOLE_COMMAND_BURST), shared by all the account's sessions.
 */
export class AccountBudgets {
  readonly #rate: number;
  readonly #burst: number;
  readonly #buckets = new Map<number, TokenBucket>();

  constructor(rate: number, burst: number) {
    this.#rate = rate;
    this.#burst = burst;
  }

  /** Takes one command from the account's budget; false when it is spent. Always true when the rate is 0. */
  take(accountId: number, now: number): boolean {
    let bucket = this.#buckets.get(accountId);
    if (!bucket) {
      bucket = sessionBudget(this.#rate, this.#burst, now);
      if (!bucket) return true;
      if (this.#buckets.size >= MAX_ACCOUNT_BUDGETS) this.#buckets.delete(this.#buckets.keys().next().value as number);
      this.#buckets.set(accountId, bucket);
    }
    return bucket.take(now);
  }
}

// Past this many remembered sends the old ones are swept, so a fleet-wide bulk reboot leaves nothing behind.
const SWEEP_AT = 4_096;

/** The last accepted send of each dangerous command to each device, on this node. */
export class DangerousCommandGuard {
  readonly #gapMs: number;
  readonly #last = new Map<string, number>();
  #sweptAt = 0;

  constructor(gapMs = DANGEROUS_COMMAND_GAP_MS) {
    this.#gapMs = gapMs;
  }

  /** True (and remembered) when `msgId` may go to `sn` now; always true for commands that are not dangerous. */
  allow(sn: string, msgId: number, data: unknown, now: number): boolean {
    if (!DANGEROUS_COMMANDS.has(msgId)) return true;
    const app = isRecord(data) ? data.packageName : undefined;
    const key = `${sn}\u0000${msgId}\u0000${typeof app === 'string' ? app : ''}`;
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.#gapMs) return false;
    // At most one sweep per gap: a bulk reboot of thousands within one gap has nothing to sweep yet.
    if (this.#last.size >= SWEEP_AT && now - this.#sweptAt >= this.#gapMs) this.#sweep(now);
    this.#last.set(key, now);
    return true;
  }

  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const [key, at] of this.#last) if (now - at >= this.#gapMs) this.#last.delete(key);
  }
}
