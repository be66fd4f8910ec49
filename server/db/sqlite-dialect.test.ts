import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { isSqliteBusy, nodeSqliteDialect } from './sqlite-dialect.ts';

// Several worker processes of a node open one database file. A second DatabaseSync on the same file
// stands for another process here: SQLite locks files, not threads.
describe('embedded database opened by several processes', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-dialect-'));
    dirs.push(dir);
    return path.join(dir, 'db.sqlite');
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('takes the write lock when a transaction begins, so a later write cannot fail on a stale snapshot', async () => {
    const file = fresh();
    const db = new Kysely<{ t: { id: number } }>({ dialect: nodeSqliteDialect(file) });
    await db.schema.createTable('t').addColumn('id', 'integer').execute();
    const other = new DatabaseSync(file);
    other.exec('PRAGMA busy_timeout = 0');
    let otherWrite: unknown;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('t').selectAll().execute();
      // Only a read so far, yet another process cannot start writing: BEGIN IMMEDIATE holds the lock.
      try {
        other.exec('BEGIN IMMEDIATE');
      } catch (err) {
        otherWrite = err;
      }
      await trx.insertInto('t').values({ id: 1 }).execute();
    });
    expect(isSqliteBusy(otherWrite)).toBe(true);
    other.exec('INSERT INTO t VALUES (2)');
    expect(other.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
    other.close();
    await db.destroy();
  });

  it("waits for another process's write lock on timers, not inside SQLite: the event loop runs meanwhile", async () => {
    const file = fresh();
    const db = new Kysely<{ t: { id: number } }>({ dialect: nodeSqliteDialect(file) });
    await db.schema.createTable('t').addColumn('id', 'integer').execute();
    const other = new DatabaseSync(file);
    other.exec('BEGIN IMMEDIATE');
    other.exec('INSERT INTO t VALUES (1)');
    let began = false;
    const written = db.transaction().execute(async (trx) => {
      began = true;
      await trx.insertInto('t').values({ id: 2 }).execute();
    });
    // Timers fire while the transaction waits for the lock; SQLite sleeping in the call would hold them
    // until its busy timeout (5 s) ran out.
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (++ticks === 5) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    expect(began).toBe(false);
    other.exec('COMMIT');
    await written;
    expect(began).toBe(true);
    expect(other.prepare('SELECT id FROM t ORDER BY id').all()).toEqual([{ id: 1 }, { id: 2 }]);
    other.close();
    await db.destroy();
  });

  it('opens in WAL mode with a busy timeout, so readers in other processes never wait for a writer', async () => {
    const file = fresh();
    const db = new Kysely<{ t: { id: number } }>({ dialect: nodeSqliteDialect(file) });
    await db.schema.createTable('t').addColumn('id', 'integer').execute();
    const reader = new DatabaseSync(file);
    reader.exec('PRAGMA busy_timeout = 0');
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ id: 1 }).execute();
      // Uncommitted: the reader sees the last committed state, without waiting.
      expect(reader.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 });
    });
    expect(reader.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    reader.close();
    await db.destroy();
  });
});
