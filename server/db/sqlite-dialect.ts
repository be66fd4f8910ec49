import { DatabaseSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

/** Compiled statements kept per database; far more than the distinct statements the server issues. */
const STATEMENT_CACHE_SIZE = 1_000;
/**
 * How long one statement waits for another process's write lock (the worker processes of one node share
 * the file). SQLite sleeps inside the call, so this also bounds how long a worker's event loop can stall.
 */
const BUSY_TIMEOUT_MS = 5_000;
/** Further attempts of a statement that still found the database busy after a whole busy timeout. */
const BUSY_RETRIES = 3;

/** SQLITE_BUSY (5) and SQLITE_LOCKED (6), with any extended code (BUSY_SNAPSHOT is 517). */
export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && ((code & 0xff) === 5 || (code & 0xff) === 6);
}

/**
 * Kysely's SqliteDialect over the SQLite built into Node (node:sqlite), which has no native addon to
 * compile. Kysely expects a better-sqlite3-shaped database; node:sqlite differs only in taking spread
 * parameters and in how a statement says it returns rows.
 */
export function nodeSqliteDialect(file: string): SqliteDialect {
  const db = new DatabaseSync(file);
  // The busy timeout comes first: switching to WAL needs a lock that another worker opening the same
  // file at the same moment may hold. WAL lets readers in every process go on while one process writes.
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;`);
  type Param = null | number | bigint | string | Uint8Array;
  // Compiling SQL was the largest single CPU cost under device load (profiled in the gateway bench): the
  // same few hundred statements run over and over, so each is compiled once. node:sqlite statements run
  // synchronously, so reuse is safe; iterate() is the exception, so streamed queries get their own.
  const cache = new Map<string, SqliteStatement>();
  // Outside a transaction a statement that timed out on another process's lock changed nothing, so it
  // is simply run again. Inside one it is not: the transaction's earlier statements must be redone, so the
  // error goes to the caller, which rolls back.
  const retryingBusy = <T>(run: () => T): T => {
    for (let attempt = 0; ; attempt++) {
      try {
        return run();
      } catch (err) {
        if (attempt >= BUSY_RETRIES || !isSqliteBusy(err) || db.isTransaction) throw err;
      }
    }
  };
  const compile = (source: string): SqliteStatement => {
    // Kysely opens transactions with a plain BEGIN, which takes the write lock only at the first write. In
    // WAL mode a second process that committed in between makes that upgrade fail at once with
    // SQLITE_BUSY_SNAPSHOT, which no busy timeout waits out; BEGIN IMMEDIATE takes the lock up front
    // (waiting as long as the busy timeout allows).
    const sql = source === 'begin' ? 'begin immediate' : source;
    const stmt = db.prepare(sql);
    return {
      reader: stmt.columns().length > 0,
      all: (params) => retryingBusy(() => stmt.all(...(params as Param[]))),
      run: (params) => {
        const r = retryingBusy(() => stmt.run(...(params as Param[])));
        return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
      },
      iterate: (params) => db.prepare(sql).iterate(...(params as Param[])),
    };
  };
  const adapter: SqliteDatabase = {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = compile(sql);
        // Oldest first out: a Map iterates in insertion order.
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
  return new SqliteDialect({ database: adapter });
}
