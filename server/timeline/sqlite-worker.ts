// The timeline's writing thread (server/timeline/sqlite-thread.ts): its own connection to the SQLite file,
// one transaction per flush, the entries in multi-row statements of `maxRows` rows, each statement's
// failure reported and its rows dropped while the others are kept (SQLite backs out only the failing
// statement). Run by Node itself (type stripping), so it imports only what Node can load unbundled.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import type { FromTimelineThread, TimelineThreadData, TimelineWriteFailure, ToTimelineThread } from './sqlite-thread.ts';
import { TIMELINE_COLUMNS, type TimelineValue } from './tables.ts';

/** As the server's own connection (server/db/sqlite-dialect.ts): how long to wait for another process's write lock. */
const BUSY_TIMEOUT_MS = 5_000;
/** Further attempts to begin a flush's transaction that still found the database busy. */
const BUSY_RETRIES = 3;
/** Compiled statements kept, by row count: the full one and a few remainders. */
const STATEMENTS_KEPT = 16;

const { file, maxRows } = workerData as TimelineThreadData;
const port = parentPort;
if (!port) throw new Error('the timeline writer runs as a worker thread');

const db = new DatabaseSync(file);
db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA synchronous = NORMAL;`);
const width = TIMELINE_COLUMNS.length;
const statements = new Map<number, StatementSync>();

function insertOf(rows: number): StatementSync {
  let stmt = statements.get(rows);
  if (!stmt) {
    const row = `(${Array<string>(width).fill('?').join(',')})`;
    stmt = db.prepare(`insert into device_timeline (${TIMELINE_COLUMNS.join(', ')}) values ${Array<string>(rows).fill(row).join(',')}`);
    if (statements.size >= STATEMENTS_KEPT) statements.delete(statements.keys().next().value as number);
    statements.set(rows, stmt);
  }
  return stmt;
}

function failureOf(err: unknown, rows: number): TimelineWriteFailure {
  const e = err as { message?: unknown; code?: unknown; errcode?: unknown } | null;
  const code = typeof e?.errcode === 'number' ? e.errcode : typeof e?.code === 'string' ? e.code : undefined;
  return { rows, message: String(e?.message ?? err), code };
}

const isBusy = (err: unknown) => {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && ((code & 0xff) === 5 || (code & 0xff) === 6);
};

function write(values: readonly TimelineValue[], rows: number): TimelineWriteFailure[] {
  for (let attempt = 0; ; attempt++) {
    try {
      db.exec('begin immediate');
      break;
    } catch (err) {
      if (attempt >= BUSY_RETRIES || !isBusy(err)) return [failureOf(err, rows)];
    }
  }
  const failures: TimelineWriteFailure[] = [];
  for (let i = 0; i < rows; i += maxRows) {
    const n = Math.min(maxRows, rows - i);
    try {
      insertOf(n).run(...values.slice(i * width, (i + n) * width));
    } catch (err) {
      failures.push(failureOf(err, n));
    }
  }
  try {
    // An I/O error can end the transaction by itself; then there is nothing left to commit.
    if (db.isTransaction) db.exec('commit');
  } catch (err) {
    if (db.isTransaction) db.exec('rollback');
    return [failureOf(err, rows)];
  }
  return failures;
}

port.on('message', (m: ToTimelineThread) => {
  if (m.kind === 'close') {
    db.close();
    port.close();
    return;
  }
  const answer: FromTimelineThread = { seq: m.seq, failures: write(m.values, m.rows) };
  port.postMessage(answer);
});
