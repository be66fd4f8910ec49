import { CompiledQuery } from 'kysely';
import { Result, type ResultCode } from '../../protocol/index.ts';
import type { TimelineSource } from '../../protocol/api/timeline.ts';
import type { Db } from '../db/database.ts';
import { replyMessage, summariseParams } from './summary.ts';
import type { TimelineRow } from './tables.ts';

/** A row as the writer queues it: every column but the id, none left out. */
type TimelineValues = Omit<TimelineRow, 'id'>;

/** The columns of a row in the order Kysely lists a multi-row insert's parameters: row by row, in this order. */
const COLUMNS = ['org_id', 'sn', 'sent_at', 'account', 'source', 'msg_id', 'params', 'result', 'message', 'duration_ms', 'recording_id'] as const satisfies readonly (keyof TimelineValues)[];

/** A batch's values as one statement's parameters, row by row in COLUMNS order. */
function parametersOf(batch: readonly TimelineValues[]): unknown[] {
  const out = new Array<unknown>(batch.length * COLUMNS.length);
  let k = 0;
  for (const row of batch) for (const column of COLUMNS) out[k++] = row[column];
  return out;
}

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
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * Write-behind for the per-device timeline: the command paths only push a row to an array; a timer
 * writes what gathered every `flushMs` (or at once past `maxRows`) in multi-row inserts, one batch at a
 * time. A failed write is logged and dropped: the timeline is a record of what happened, never in the way
 * of a command (docs/DECISIONS.md, "Device timeline").
 */
export class TimelineWriter {
  readonly #db: Db;
  readonly #flushMs: number;
  readonly #maxRows: number;
  readonly #log: { warn(obj: object, msg: string): void };
  #rows: TimelineValues[] = [];
  /**
   * The SQL of a full batch (`maxRows` rows), compiled once. Under load every flush is full batches, and
   * building the same 500-row insert each time through Kysely's query tree was about 1.3 KB of garbage and
   * a few us of CPU per command (gateway bench, allocation sampling); smaller batches come at most every
   * `flushMs` and are built as before.
   */
  #fullBatchSql: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The batch being written; the next waits for it, so rows reach the table in the order they ended. */
  #writing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(db: Db, opts: TimelineWriterOptions) {
    this.#db = db;
    this.#flushMs = opts.flushMs ?? 250;
    this.#maxRows = opts.maxRows ?? 500;
    this.#log = opts.log;
  }

  /** Rows waiting for a flush. */
  get size(): number {
    return this.#rows.length;
  }

  /** Queues one entry (on the command hot path: a summary and a push). */
  record(e: TimelineEvent): void {
    if (this.#closed) return;
    this.#rows.push({
      org_id: e.orgId,
      sn: e.sn,
      sent_at: e.at,
      account: e.account.slice(0, 128),
      source: e.source,
      msg_id: e.msgId,
      params: summariseParams(e.data),
      result: e.result,
      message: replyMessage(e.reply),
      duration_ms: Math.max(0, Math.round(e.durationMs)),
      recording_id: e.recordingId ?? null,
    });
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

  async #write(rows: readonly TimelineValues[]): Promise<void> {
    for (let i = 0; i < rows.length; i += this.#maxRows) {
      const batch = rows.slice(i, i + this.#maxRows);
      try {
        await this.#insert(batch);
      } catch (err) {
        this.#log.warn({ err, rows: batch.length }, 'writing timeline entries failed');
      }
    }
  }

  async #insert(batch: readonly TimelineValues[]): Promise<void> {
    const full = batch.length === this.#maxRows;
    if (full && this.#fullBatchSql !== undefined) {
      await this.#db.executeQuery(CompiledQuery.raw(this.#fullBatchSql, parametersOf(batch)));
      return;
    }
    const compiled = this.#db.insertInto('device_timeline').values(batch).compile();
    // Reused only if Kysely's parameters are exactly the batch's values in COLUMNS order, row by row: a
    // Kysely that listed them otherwise would keep building every batch, never write a value elsewhere.
    if (full) {
      const expected = parametersOf(batch);
      if (compiled.parameters.length === expected.length && compiled.parameters.every((p, k) => p === expected[k])) this.#fullBatchSql = compiled.sql;
    }
    await this.#db.executeQuery(compiled);
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
