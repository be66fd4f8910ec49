import { sql } from 'kysely';
import type { PushState } from '../../protocol/api/campaigns.ts';
import type { Clock, TimerHandle } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';

/** Columns of one push target that per-device progress changes; absent means "leave as it is". */
export interface TargetPatch {
  readonly phase?: string;
  readonly push_result?: number;
  readonly download_state?: number;
  readonly progress?: number;
  readonly install_result?: number;
  readonly message?: string;
  readonly attempts?: number;
  readonly updated_at: number;
}

/** Who a target is, for the live stream (not written). */
export interface TargetWho {
  readonly campaignId: number;
  readonly orgId: number;
  readonly sn: string;
}

/** A target row as a flush wrote it (the values consoles are sent). */
export interface WrittenTarget extends PushState {
  readonly id: number;
  readonly who: TargetWho;
  readonly phase: string;
}

/** Writes one batch of coalesced patches; returns the rows it changed (rows no longer open are left alone). */
export type WriteTargets = (rows: readonly { id: number; who: TargetWho; patch: TargetPatch }[]) => Promise<readonly WrittenTarget[]>;

export interface TargetWriterOptions {
  readonly clock: Clock;
  readonly write: WriteTargets;
  /** Hears every batch once it is committed. */
  readonly onWritten: (rows: readonly WrittenTarget[]) => void;
  readonly log: { warn(obj: object, msg: string): void };
  /**
   * Longest a patch waits for company before it is written. 5 ms: a device's ack (and so its next report)
   * waits at most this long, and at 10,000 reports/s a flush still carries about 50 rows.
   */
  readonly flushMs?: number;
  /** A batch this big is written at once: one statement of 500 rows stays under both databases' parameter limits. */
  readonly maxRows?: number;
  /**
   * Batches written at once. 2: while one waits for its commit (PostgreSQL, another process) the next is on
   * its way, so a report waits for about one commit, not two; a target is in one batch at a time.
   */
  readonly parallel?: number;
}

/** Phases after which a row takes no more progress. */
const CLOSED: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);

interface Pending {
  /** Order of first queueing: batches go oldest first, and flush() waits up to a number. */
  readonly seq: number;
  readonly id: number;
  readonly who: TargetWho;
  patch: TargetPatch;
  readonly waiters: ((written: boolean) => void)[];
  readonly failers: ((err: unknown) => void)[];
}

/**
 * Write-behind for per-device push progress: patches for the same target coalesce (the newest wins, but a
 * closing patch is never replaced by a later open one), and are written in one multi-row statement every
 * few milliseconds or every `maxRows` targets. `put` resolves only once its patch (or a newer one for the
 * same target) is committed, and the device's report is acknowledged only then: a crash before the flush
 * loses nothing, because a device sends its unacknowledged last report again (docs/DECISIONS.md).
 * A target is in one batch at a time, so its patches reach the database in the order they were made.
 */
export class TargetWriter {
  readonly #o: Required<TargetWriterOptions>;
  #pending = new Map<number, Pending>();
  #timer: TimerHandle | undefined;
  #seq = 0;
  /** flush() calls waiting until every patch queued up to `upTo` is written (or failed). */
  #flushWaiters: { upTo: number; resolve: () => void }[] = [];
  /** The timer set is a flush "at once" (not after flushMs). */
  #timerNow = false;
  /** Batches being written: their targets and their oldest sequence number. */
  readonly #writing = new Set<{ readonly ids: readonly number[]; readonly oldest: number }>();
  readonly #writingIds = new Set<number>();
  /** A flush() waits: the next batch goes at once rather than after flushMs. */
  #urgent = false;

  constructor(opts: TargetWriterOptions) {
    this.#o = { flushMs: 5, maxRows: 500, parallel: 2, ...opts };
  }

  /** Patches waiting for a flush. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Queues a patch; resolves true once it is committed, false when the row was no longer open. `under`
   * fills only the columns a queued patch does not set yet (the dispatcher's "accepted" must not hide a
   * report the device made right after accepting).
   */
  put(id: number, who: TargetWho, patch: TargetPatch, mode: 'over' | 'under' = 'over'): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const known = this.#pending.get(id);
      if (known) {
        // A closing state is final: a late "downloading" must not reopen it before it is written.
        if (mode === 'under') known.patch = { ...patch, ...known.patch };
        else if (!(known.patch.phase && CLOSED.has(known.patch.phase) && !(patch.phase && CLOSED.has(patch.phase)))) known.patch = { ...known.patch, ...patch };
        known.waiters.push(resolve);
        known.failers.push(reject);
      } else {
        this.#pending.set(id, { seq: ++this.#seq, id, who, patch, waiters: [resolve], failers: [reject] });
      }
      if (this.#pending.size >= this.#o.maxRows) this.#kick(0);
      else this.#kick(this.#o.flushMs);
    });
  }

  /**
   * Resolves once everything queued so far is written (or failed): before a decision that reads the rows.
   * Patches queued meanwhile are not waited for, so a steady stream of reports cannot hold a pass up.
   */
  async flush(): Promise<void> {
    if (this.#pending.size === 0 && this.#writing.size === 0) return;
    const done = new Promise<void>((resolve) => this.#flushWaiters.push({ upTo: this.#seq, resolve }));
    if (this.#pending.size > 0) {
      this.#urgent = true;
      this.#kick(0);
    }
    await done;
  }

  /** Writes until nothing is queued (shutdown, once reports have stopped coming). */
  async drain(): Promise<void> {
    while (this.#writing.size > 0 || this.#pending.size > 0) await this.flush();
  }

  #kick(ms: number): void {
    if (this.#writing.size >= this.#o.parallel) return; // a batch that ends picks the rest up
    if (this.#timer !== undefined) {
      // A timer already set fires soon enough unless this one must go at once and that one does not.
      if (ms > 0 || this.#timerNow) return;
      this.#o.clock.clearTimeout(this.#timer);
    }
    this.#timerNow = ms === 0;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#flushOnce();
    }, ms);
  }

  #flushOnce(): void {
    if (this.#writing.size >= this.#o.parallel) return;
    // The oldest first (a Map keeps insertion order), without copying a long queue each time; a target
    // whose earlier patch is still being written waits for it.
    const batch: Pending[] = [];
    for (const p of this.#pending.values()) {
      if (batch.length >= this.#o.maxRows) break;
      if (!this.#writingIds.has(p.id)) batch.push(p);
    }
    const first = batch[0];
    if (!first) return;
    const entry = { ids: batch.map((p) => p.id), oldest: first.seq };
    for (const p of batch) {
      this.#pending.delete(p.id);
      this.#writingIds.add(p.id);
    }
    this.#writing.add(entry);
    // More queued: the next batch goes beside this one, at once when it is full, else after flushMs.
    if (this.#pending.size > 0) this.#kick(this.#urgent || this.#pending.size >= this.#o.maxRows ? 0 : this.#o.flushMs);
    void (async () => {
      try {
        const written = await this.#o.write(batch.map(({ id, who, patch }) => ({ id, who, patch })));
        const ids = new Set(written.map((w) => w.id));
        if (written.length > 0) this.#o.onWritten(written);
        for (const p of batch) for (const w of p.waiters) w(ids.has(p.id));
      } catch (err) {
        // The reports stay unacknowledged; devices send them again (after their next login at the latest).
        this.#o.log.warn({ err, rows: batch.length }, 'push progress flush failed');
        for (const p of batch) for (const f of p.failers) f(err);
      } finally {
        this.#writing.delete(entry);
        for (const id of entry.ids) this.#writingIds.delete(id);
        let oldest = this.#pending.values().next().value?.seq ?? Infinity;
        for (const w of this.#writing) oldest = Math.min(oldest, w.oldest);
        this.#flushWaiters = this.#flushWaiters.filter((w) => (w.upTo < oldest ? (w.resolve(), false) : true));
        if (this.#pending.size > 0) this.#kick(this.#urgent || this.#pending.size >= this.#o.maxRows ? 0 : this.#o.flushMs);
        else if (this.#writing.size === 0) this.#urgent = false;
      }
    })();
  }
}

/**
 * One statement per batch on both databases: the patches travel as a VALUES list (cast, so PostgreSQL knows
 * their types; NULL keeps the column), joined to the table with UPDATE ... FROM, and RETURNING gives the
 * rows as written. Rows no longer queued or sent (cancelled, closed by another pass) are not touched.
 */
export function sqlTargetWriter(db: Db): WriteTargets {
  return async (rows) => {
    if (rows.length === 0) return [];
    const n = (v: number | undefined) => (v === undefined ? null : v);
    const values = rows.map(
      ({ id, patch: p }) =>
        sql`(CAST(${id} AS integer), CAST(${p.phase ?? null} AS text), CAST(${n(p.push_result)} AS integer), CAST(${n(p.download_state)} AS integer), CAST(${n(p.progress)} AS integer), CAST(${n(p.install_result)} AS integer), CAST(${p.message ?? null} AS text), CAST(${n(p.attempts)} AS integer), CAST(${p.updated_at} AS bigint))`,
    );
    const result = await sql<{ id: number; phase: string; push_result: number; download_state: number; progress: number; install_result: number; message: string; updated_at: number | string }>`
      WITH v(vid, vphase, vpush_result, vdownload_state, vprogress, vinstall_result, vmessage, vattempts, vupdated_at) AS (VALUES ${sql.join(values)})
      UPDATE push_targets SET
        phase = COALESCE(vphase, phase),
        push_result = COALESCE(vpush_result, push_result),
        download_state = COALESCE(vdownload_state, download_state),
        progress = COALESCE(vprogress, progress),
        install_result = COALESCE(vinstall_result, install_result),
        message = COALESCE(vmessage, message),
        attempts = COALESCE(vattempts, attempts),
        updated_at = vupdated_at
      FROM v
      WHERE id = vid AND phase IN ('queued', 'sent')
      RETURNING id, phase, push_result, download_state, progress, install_result, message, updated_at`.execute(db);
    const whoOf = new Map(rows.map((r) => [r.id, r.who]));
    return result.rows.flatMap((r) => {
      const who = whoOf.get(Number(r.id));
      return who
        ? [{ id: Number(r.id), who, phase: r.phase, pushResult: r.push_result, downloadState: r.download_state, progress: r.progress, installResult: r.install_result, message: r.message, updateTime: Number(r.updated_at) }]
        : [];
    });
  };
}
