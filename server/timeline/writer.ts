import { type CompiledQuery, PostgresAdapter, sql } from 'kysely';
import { Result, type ResultCode } from '../../protocol/index.ts';
import type { TimelineSource } from '../../protocol/api/timeline.ts';
import type { Db } from '../db/database.ts';
import { replyMessage, summariseParams } from './summary.ts';

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
  /** A batch this big is written at once (and a write is cut into batches of this many rows). */
  readonly maxRows?: number;
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * One entry as the parameters of its insert, in {@link COLUMNS}' order: an array, not a keyed object, so
 * a flush passes it on as it is (no query tree built per row or per batch).
 */
type TimelineParams = [
  orgId: number,
  sn: string,
  sentAt: number,
  account: string,
  source: string,
  msgId: number,
  params: string,
  result: number,
  message: string,
  durationMs: number,
  recordingId: string | null,
];

const COLUMNS = 'org_id, sn, sent_at, account, source, msg_id, params, result, message, duration_ms, recording_id';
/** SQLite: one row, compiled once by the dialect's statement cache and run per row in one transaction. */
const INSERT_ONE = `insert into device_timeline (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** PostgreSQL: a whole batch as one array per column; the same text whatever the batch's size. */
const INSERT_ARRAYS =
  `insert into device_timeline (${COLUMNS}) select * from unnest(` +
  '$1::integer[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::integer[], $7::text[], $8::integer[], $9::text[], $10::integer[], $11::text[])';

/**
 * Write-behind for the per-device timeline: the command paths only push a row to an array; a timer
 * writes what gathered every `flushMs` (or at once past `maxRows`), one batch at a time. A batch is one
 * transaction of a cached single-row insert on SQLite, one statement of column arrays on PostgreSQL:
 * neither builds a query per batch (a multi-row insert built by Kysely and compiled by SQLite per flush
 * was 14% of the gateway's JavaScript at 5,000 commands/s). A failed write is logged and dropped: the
 * timeline is a record of what happened, never in the way of a command (docs/DECISIONS.md, "Device
 * timeline").
 */
export class TimelineWriter {
  readonly #db: Db;
  readonly #flushMs: number;
  readonly #maxRows: number;
  readonly #log: { warn(obj: object, msg: string): void };
  readonly #postgres: boolean;
  /** The compiled single-row insert (SQLite); each row's query is this with its own parameters. */
  readonly #insertOne: CompiledQuery;
  #rows: TimelineParams[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The batch being written; the next waits for it, so rows reach the table in the order they ended. */
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(db: Db, opts: TimelineWriterOptions) {
    this.#db = db;
    this.#flushMs = opts.flushMs ?? 250;
    this.#maxRows = opts.maxRows ?? 500;
    this.#log = opts.log;
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.#insertOne = sql.raw(INSERT_ONE).compile(db);
  }

  /** Rows waiting for a flush. */
  get size(): number {
    return this.#rows.length;
  }

  /** Queues one entry (on the command hot path: a summary and a push). */
  record(e: TimelineEvent): void {
    if (this.#closed) return;
    this.#rows.push([
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
    ]);
    if (this.#rows.length >= this.#maxRows) {
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
    const rows = this.#rows;
    if (rows.length === 0) return this.#writing;
    this.#rows = [];
    this.#writing = this.#writing.then(() => this.#write(rows));
    return this.#writing;
  }

  async #write(rows: readonly TimelineParams[]): Promise<void> {
    for (let i = 0; i < rows.length; i += this.#maxRows) {
      const batch = rows.length <= this.#maxRows ? rows : rows.slice(i, i + this.#maxRows);
      try {
        await (this.#postgres ? this.#writeArrays(batch) : this.#writeRows(batch));
      } catch (err) {
        this.#log.warn({ err, rows: batch.length }, 'writing timeline entries failed');
      }
    }
  }

  /** SQLite: the cached statement per row, all in one transaction (one commit, one fsync at most). */
  async #writeRows(batch: readonly TimelineParams[]): Promise<void> {
    const one = this.#insertOne;
    await this.#db.transaction().execute(async (trx) => {
      for (const row of batch) {
        await trx.executeQuery({ query: one.query, queryId: one.queryId, sql: one.sql, parameters: row });
      }
    });
  }

  /** PostgreSQL: one statement, its rows as an array per column (no per-row round trip). */
  async #writeArrays(batch: readonly TimelineParams[]): Promise<void> {
    const columns = Array.from({ length: 11 }, (_, c) => batch.map((row) => row[c]));
    await this.#db.executeQuery({ query: this.#insertOne.query, queryId: this.#insertOne.queryId, sql: INSERT_ARRAYS, parameters: columns });
  }

  /** Writes what is queued and takes no more (the gateway closes it before the database closes). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
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
