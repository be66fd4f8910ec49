import { sql } from 'kysely';
import type { Clock, TimerHandle } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';

/**
 * Idle gap after which time between two requests of a session no longer counts as active: 30 minutes,
 * the spec's 1800000 ms constant (devices-and-commerce section 9), also a common web-analytics cut-off.
 */
export const IDLE_CUTOFF_MS = 1_800_000;
// Activity is buffered and written this often: one upsert per active session, not one per request.
const FLUSH_EVERY_MS = 10_000;

interface Pending {
  accountId: number;
  account: string;
  orgId: number;
  lastActive: number;
  startedAt: number;
  activeMs: number;
  requests: number;
}

/** What a request tells the tracker: whose session it came from and when. */
export interface Activity {
  readonly tokenHash: string;
  readonly accountId: number;
  readonly account: string;
  readonly orgId: number;
  readonly time: number;
}

/** Active time added by a request at `time` after the session's previous one at `last` (0 for the first). */
export function activeGap(last: number | undefined, time: number): number {
  if (last === undefined) return 0;
  const gap = time - last;
  return gap > 0 && gap <= IDLE_CUTOFF_MS ? gap : 0;
}

/**
 * Counts console sessions and their active time from authenticated requests, for the platform usage
 * report: a session's active time is the sum of gaps between its requests that are at most 30 minutes.
 */
export class UsageTracker {
  readonly #db: Db;
  readonly #clock: Clock;
  /** Last request time of every session seen by this process. */
  readonly #last = new Map<string, number>();
  #pending = new Map<string, Pending>();
  #timer: TimerHandle | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  record(a: Activity): void {
    const gap = activeGap(this.#last.get(a.tokenHash), a.time);
    this.#last.set(a.tokenHash, a.time);
    const p = this.#pending.get(a.tokenHash);
    if (p) {
      p.lastActive = Math.max(p.lastActive, a.time);
      p.activeMs += gap;
      p.requests++;
    } else {
      this.#pending.set(a.tokenHash, { accountId: a.accountId, account: a.account, orgId: a.orgId, lastActive: a.time, startedAt: a.time, activeMs: gap, requests: 1 });
    }
    this.#timer ??= this.#clock.setTimeout(() => {
      this.#timer = undefined;
      void this.flush().catch(() => undefined);
    }, FLUSH_EVERY_MS);
  }

  /** Writes buffered activity; the usage report calls it first so it includes the latest requests. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = [...this.#pending.entries()];
    this.#pending = new Map();
    // A session idle past the cut-off adds nothing more for its next gap, so its last time can go.
    const idleSince = this.#clock.now() - IDLE_CUTOFF_MS;
    for (const [token, last] of this.#last) if (last < idleSince) this.#last.delete(token);
    const write = this.#writing.then(() => this.#write(batch));
    this.#writing = write.catch(() => undefined);
    return write;
  }

  async #write(batch: [string, Pending][]): Promise<void> {
    for (let i = 0; i < batch.length; i += 400) {
      const part = batch.slice(i, i + 400);
      await this.#db
        .insertInto('usage_sessions')
        .values(
          part.map(([tokenHash, p]) => ({
            token_hash: tokenHash,
            account_id: p.accountId,
            account: p.account,
            org_id: p.orgId,
            started_at: p.startedAt,
            last_active_at: p.lastActive,
            active_ms: p.activeMs,
            requests: p.requests,
          })),
        )
        .onConflict((oc) =>
          oc.column('token_hash').doUpdateSet({
            last_active_at: sql`case when excluded.last_active_at > usage_sessions.last_active_at then excluded.last_active_at else usage_sessions.last_active_at end`,
            active_ms: sql`usage_sessions.active_ms + excluded.active_ms`,
            requests: sql`usage_sessions.requests + excluded.requests`,
          }),
        )
        .execute();
    }
  }
}
