import { DatabaseSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

/** Compiled statements kept per database; far more than the distinct statements the server issues. */
const STATEMENT_CACHE_SIZE = 1_000;

/**
 * Kysely's SqliteDialect over the SQLite built into Node (node:sqlite), which has no native addon to
 * compile. Kysely expects a better-sqlite3-shaped database; node:sqlite differs only in taking spread
 * parameters and in how a statement says it returns rows.
 */
export function nodeSqliteDialect(file: string): SqliteDialect {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
  type Param = null | number | bigint | string | Uint8Array;
  // Compiling SQL was the largest single CPU cost under device load (profiled in the gateway bench): the
  // same few hundred statements run over and over, so each is compiled once. node:sqlite statements run
  // synchronously, so reuse is safe; iterate() is the exception, so streamed queries get their own.
  const cache = new Map<string, SqliteStatement>();
  const compile = (sql: string): SqliteStatement => {
    const stmt = db.prepare(sql);
    return {
      reader: stmt.columns().length > 0,
      all: (params) => stmt.all(...(params as Param[])),
      run: (params) => {
        const r = stmt.run(...(params as Param[]));
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
