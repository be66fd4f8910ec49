import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { WRITER_CHECKPOINT_CEILING_PAGES } from './checkpointer.ts';
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

  it("runs a single write outside a transaction once another process's lock is free, on timers meanwhile", async () => {
    const file = fresh();
    const db = new Kysely<{ t: { id: number } }>({ dialect: nodeSqliteDialect(file) });
    await db.schema.createTable('t').addColumn('id', 'integer').execute();
    const other = new DatabaseSync(file);
    other.exec('BEGIN IMMEDIATE');
    other.exec('INSERT INTO t VALUES (1)');
    let wrote = false;
    const written = db
      .insertInto('t')
      .values({ id: 2 })
      .execute()
      .then(() => (wrote = true));
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (++ticks === 5) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    expect(wrote).toBe(false);
    other.exec('COMMIT');
    await written;
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

  describe('checkpoints', () => {
    type Padded = { t: { id: number; pad: string } };
    /** Writes `pages` pages' worth of rows (4 KiB pages) in one transaction. */
    const fill = async (db: Kysely<Padded>, pages: number) => {
      await db.schema.createTable('t').ifNotExists().addColumn('id', 'integer').addColumn('pad', 'text').execute();
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < pages; i++) await trx.insertInto('t').values({ id: i, pad: 'x'.repeat(3_500) }).execute();
      });
    };
    const fileBytes = (file: string) => fs.statSync(file).size;

    it('copies the write-ahead log into the file on a thread of its own, before any commit would', async () => {
      const file = fresh();
      const db = new Kysely<Padded>({ dialect: nodeSqliteDialect(file, 'thread') });
      // 600 pages: under the 1,000 at which SQLite's own commit would have copied them.
      await fill(db, 600);
      await expect.poll(() => fileBytes(file), { timeout: 10_000 }).toBeGreaterThan(600 * 3_500);
      const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(db);
      expect(rows).toEqual([{ wal_autocheckpoint: WRITER_CHECKPOINT_CEILING_PAGES }]);
      await db.destroy();
      // The thread has let go of the file: another connection writes at once.
      const after = new DatabaseSync(file);
      after.exec('PRAGMA busy_timeout = 0; INSERT INTO t VALUES (-1, NULL)');
      expect(after.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 601 });
      after.close();
    });

    it('finishes closing in a process with nothing else to do: the stopping thread holds it open', () => {
      const file = fresh();
      // A module file, as a server's entry is (`node -e` kept the process alive regardless).
      const script = path.join(path.dirname(file), 'close.mjs');
      const dialect = pathToFileURL(path.join(import.meta.dirname, 'sqlite-dialect.ts')).href;
      // The thread's last pass has 3,000 pages to copy, so the close is still waiting for it when the
      // process's own work is done (with the thread unreferenced, Node exited there with code 13).
      fs.writeFileSync(
        script,
        `import { Kysely, sql } from ${JSON.stringify(import.meta.resolve('kysely'))}; import { nodeSqliteDialect } from ${JSON.stringify(dialect)};
        const db = new Kysely({ dialect: nodeSqliteDialect(${JSON.stringify(file)}, 'thread') });
        await sql\`create table t (id integer, pad text)\`.execute(db);
        await db.transaction().execute(async (trx) => { for (let i = 0; i < 3000; i++) await sql\`insert into t values (\${i}, \${'x'.repeat(3500)})\`.execute(trx); });
        await db.destroy(); console.log('closed');`,
      );
      const run = spawnSync(process.execPath, [script], { encoding: 'utf8' });
      expect({ status: run.status, out: run.stdout.trim() }).toEqual({ status: 0, out: 'closed' });
    });

    it("leaves a commit past 1,000 pages to another process's checkpointer (a worker of a node)", async () => {
      const file = fresh();
      const db = new Kysely<Padded>({ dialect: nodeSqliteDialect(file, 'elsewhere') });
      await fill(db, 1_200);
      // SQLite's default would have copied the log at this commit; only the log holds the rows.
      expect(fileBytes(file)).toBeLessThan(100 * 4_096);
      expect(fileBytes(`${file}-wal`)).toBeGreaterThan(1_200 * 3_500);
      await db.destroy();
    });
  });
});
