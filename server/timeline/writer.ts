import { Result, type ResultCode } from '../../protocol/index.ts';
import type { TimelineSource } from '../../protocol/api/timeline.ts';
import { SqliteAdapter, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { TimelineThread, type TimelineWriteFailure } from './sqlite-thread.ts';
import { replyMessage, summariseParams } from './summary.ts';
import { TIMELINE_COLUMNS, type TimelineInsert, type TimelineValue } from './tables.ts';

/** One command's outcome as the command paths report it (gateway.command, the console endpoint). */
export interface TimelineEvent {
  readonly orgId: number;
  readonly sn: string;
  /** Account name, or 'platform'. */
  readonly account: string;
  readonly source: TimelineSource;
  readonly msgId: number;
  /** The command's data (summarised on the hot path, not kept). */
  readonly data: unknown;
  readonly result: ResultCode | number;
  /** The reply's data (its `message` is kept). */
  readonly reply: unknown;
  /** When the command was sent (epoch ms) and how long it took. */
  readonly at: number;
  readonly durationMs: number;
  readonly recordingId?: string | null;
}

export interface TimelineWriterOptions {
  /**
   * Longest an entry waits before it is written. 250 ms: the timeline is read by people, a quarter of a
   * second late is invisible, and at 10,000 commands/s a flush carries about 2,500 rows (5 statements).
   */
  readonly flushMs?: number;
  /** Rows per statement (and a batch this big is written at once): 500 rows of 11 columns stay under both databases' parameter limits. */
  readonly maxRows?: number;
  /**
   * On a SQLite file, write from a thread of its own with its own connection (the default); false writes
   * through `db` on this thread, as PostgreSQL and an in-memory SQLite always do.
   */
  readonly ownThread?: boolean;
  readonly log: { warn(obj: object, msg: string): void };
}

/** Where a flush's values go: the database through `db`, or the writing thread. */
interface TimelineSink {
  write(values: readonly TimelineValue[], rows: number): Promise<readonly TimelineWriteFailure[]>;
  close(): Promise<void>;
}

/** Writes through the server's own connection (PostgreSQL, an in-memory SQLite, or the thread gone). */
class DbSink implements TimelineSink {
  readonly #db: Db;
  readonly #maxRows: number;

  constructor(db: Db, maxRows: number) {
    this.#db = db;
    this.#maxRows = maxRows;
  }

  async write(values: readonly TimelineValue[], rows: number): Promise<readonly TimelineWriteFailure[]> {
    const width = TIMELINE_COLUMNS.length;
    const failures: TimelineWriteFailure[] = [];
    for (let i = 0; i < rows; i += this.#maxRows) {
      const batch: TimelineInsert[] = [];
      for (let r = i; r < Math.min(rows, i + this.#maxRows); r++) batch.push(insertOf(values, r * width));
      try {
        await this.#db.insertInto('device_timeline').values(batch).execute();
      } catch (err) {
        const e = err as { message?: unknown; code?: unknown };
        failures.push({ rows: batch.length, message: String(e.message ?? err), code: typeof e.code === 'string' || typeof e.code === 'number' ? e.code : undefined });
      }
    }
    return failures;
  }

  async close(): Promise<void> {}
}

/** The entry whose values start at `at`, as Kysely inserts it. */
function insertOf(values: readonly TimelineValue[], at: number): TimelineInsert {
  const row: Partial<Record<(typeof TIMELINE_COLUMNS)[number], TimelineValue>> = {};
  TIMELINE_COLUMNS.forEach((column, k) => (row[column] = values[at + k] ?? null));
  // The values were queued in this order by TimelineWriter.record, each of its column's type.
  return row as TimelineInsert;
}

/** The writing thread for a SQLite file; undefined for PostgreSQL and an in-memory SQLite. */
async function threadFor(db: Db, maxRows: number): Promise<TimelineThread | undefined> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return undefined;
  const { rows } = await sql<{ name: string; file: string }>`pragma database_list`.execute(db);
  const file = rows.find((r) => r.name === 'main')?.file;
  return file ? new TimelineThread({ file, maxRows }) : undefined;
}

/**
 * Write-behind for the per-device timeline: the command paths only push an entry's values to an array; a
 * timer writes what gathered every `flushMs` (or at once past `maxRows`) in multi-row inserts, one batch at
 * a time. On a SQLite file the inserts run on a thread of their own (server/timeline/sqlite-thread.ts). A
 * failed write is logged and dropped: the timeline is a record of what happened, never in the way of a
 * command (docs/DECISIONS.md, "Device timeline").
 */
export class TimelineWriter {
  readonly #flushMs: number;
  readonly #maxRows: number;
  readonly #log: { warn(obj: object, msg: string): void };
  readonly #dbSink: DbSink;
  /** Where writes go, once known (finding out whether the database is a SQLite file takes a query). */
  #sink: Promise<TimelineSink>;
  /** Queued entries, their values flat in TIMELINE_COLUMNS order. */
  #values: TimelineValue[] = [];
  #rows = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The batch being written; the next waits for it, so rows reach the table in the order they ended. */
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(db: Db, opts: TimelineWriterOptions) {
    this.#flushMs = opts.flushMs ?? 250;
    this.#maxRows = opts.maxRows ?? 500;
    this.#log = opts.log;
    this.#dbSink = new DbSink(db, this.#maxRows);
    this.#sink =
      opts.ownThread === false
        ? Promise.resolve(this.#dbSink)
        : threadFor(db, this.#maxRows).then(
            (thread) => thread ?? this.#dbSink,
            (err: unknown) => {
              this.#log.warn({ err }, 'timeline thread not started; writing on the main thread');
              return this.#dbSink;
            },
          );
  }

  /** Rows waiting for a flush. */
  get size(): number {
    return this.#rows;
  }

  /** Queues one entry (on the command hot path: a summary and eleven pushes, in TIMELINE_COLUMNS order). */
  record(e: TimelineEvent): void {
    if (this.#closed) return;
    this.#values.push(
      e.orgId,
      e.sn,
      e.at,
      e.account.slice(0, 128),
      e.source,
      e.msgId,
      summariseParams(e.data),
      e.result,
      replyMessage(e.reply),
      Math.max(0, Math.round(e.durationMs)),
      e.recordingId ?? null,
    );
    this.#rows++;
    if (this.#rows >= this.#maxRows) {
      void this.flush();
    } else if (this.#timer === undefined) {
      // Real time, not an injected clock: this batches writes, and a test's fake clock may stand still.
      this.#timer = setTimeout(() => void this.flush(), this.#flushMs);
      this.#timer.unref();
    }
  }

  /** Writes everything queued so far; resolves once it is committed (or its failure logged). */
  flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const values = this.#values;
    const rows = this.#rows;
    if (rows === 0) return this.#writing;
    this.#values = [];
    this.#rows = 0;
    this.#writing = this.#writing.then(() => this.#write(values, rows));
    return this.#writing;
  }

  async #write(values: readonly TimelineValue[], rows: number): Promise<void> {
    const sink = await this.#sink;
    const failures = await sink.write(values, rows);
    for (const f of failures) this.#log.warn({ err: Object.assign(new Error(f.message), { code: f.code }), rows: f.rows }, 'writing timeline entries failed');
    if (sink instanceof TimelineThread && sink.dead) {
      // The thread is gone (it failed to open the file, or crashed): later entries go through `db`.
      this.#sink = Promise.resolve(this.#dbSink);
    }
  }

  /** Writes what is queued and takes no more (the gateway closes it before the database closes). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
    await (await this.#sink).close();
  }
}

/**
 * Whether an outcome goes on the timeline. A command that never reached its device (offline, not logged
 * in) is kept when someone asked for it just now (they were told so); campaigns and held commands try
 * again by themselves, and each of their passes over an offline device would otherwise be an entry.
 */
export function timelineKeeps(source: TimelineSource, result: number): boolean {
  if (result !== Result.DeviceOffline && result !== Result.DeviceNotLoggedIn) return true;
  return source !== 'campaign' && source !== 'held';
}
