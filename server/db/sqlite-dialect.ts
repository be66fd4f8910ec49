import { DatabaseSync } from 'node:sqlite';
import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

/**
 * Kysely's SqliteDialect over the SQLite built into Node (node:sqlite), which has no native addon to
 * compile. Kysely expects a better-sqlite3-shaped database; node:sqlite differs only in taking spread
 * parameters and in how a statement says it returns rows.
 */
export function nodeSqliteDialect(file: string): SqliteDialect {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
  type Param = null | number | bigint | string | Uint8Array;
  const adapter: SqliteDatabase = {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const stmt = db.prepare(sql);
      return {
        reader: stmt.columns().length > 0,
        all: (params) => stmt.all(...(params as Param[])),
        run: (params) => {
          const r = stmt.run(...(params as Param[]));
          return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
        },
        iterate: (params) => stmt.iterate(...(params as Param[])),
      };
    },
  };
  return new SqliteDialect({ database: adapter });
}
