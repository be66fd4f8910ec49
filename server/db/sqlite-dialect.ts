import { DatabaseSync } from 'node:sqlite';
import { CompiledQuery, type DatabaseConnection, SqliteDialect, type SqliteDialectConfig, SqliteDriver, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { type Checkpointer, startCheckpointer, WRITER_CHECKPOINT_CEILING_PAGES } from './checkpointer.ts';

/** Compiled statements kept per database; far more than the distinct statements the server issues. */
const STATEMENT_CACHE_SIZE = 1_000;
/**
 * How long one statement waits for another process's write lock (the worker processes of one node share
 * the file). SQLite sleeps inside the call, so this also bounds how long a worker's event loop can stall.
 */
const BUSY_TIMEOUT_MS = 5_000;
/** Further attempts of a statement that still found the database busy after a whole busy timeout. */
const BUSY_RETRIES = 3;

/** Longest pause between attempts to begin a transaction while another process holds the write lock. */
const BEGIN_RETRY_MAX_MS = 16;

/** SQLITE_BUSY (5) and SQLITE_LOCKED (6), with any extended code (BUSY_SNAPSHOT is 517). */
export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && ((code & 0xff) === 5 || (code & 0xff) === 6);
}

/**
 * Who copies the write-ahead log into the database file:
 * - 'thread': a checkpointer thread this dialect starts, and stops when the database is destroyed (one
 *   node's process, or its primary);
 * - 'elsewhere': another process's checkpointer (the worker processes of a node, whose primary runs it);
 * - 'commit': SQLite's default, the commit that takes the log past 1,000 pages (tools, tests of SQLite).
 * With a checkpointer, a commit checkpoints only past a far ceiling (server/db/checkpointer.ts).
 */
export type CheckpointMode = 'thread' | 'elsewhere' | 'commit';

/**
 * Kysely's SqliteDialect over the SQLite built into Node (node:sqlite), which has no native addon to
 * compile. Kysely expects a better-sqlite3-shaped database; node:sqlite differs only in taking spread
 * parameters and in how a statement says it returns rows.
 */
export function nodeSqliteDialect(file: string, checkpoints: CheckpointMode = 'commit'): SqliteDialect {
  const db = new DatabaseSync(file);
  // The busy timeout comes first: switching to WAL needs a lock that another worker opening the same
  // file at the same moment may hold. WAL lets readers in every process go on while one process writes.
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;`);
  const inMemory = file === ':memory:';
  if (checkpoints !== 'commit' && !inMemory) db.exec(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_CEILING_PAGES}`);
  // Started after the switch to WAL, which the thread's connection then finds.
  const checkpointer = checkpoints === 'thread' && !inMemory ? startCheckpointer(file) : undefined;
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
    // SQLITE_BUSY_SNAPSHOT, which no busy timeout waits out; BEGIN IMMEDIATE takes the lock up front. It
    // does not wait for it here: SQLite would sleep inside the call, with this process's event loop
    // stopped (a worker of a node stalled up to 143 ms at a time behind another's telemetry flush, its
    // sockets unread). It fails at once with SQLITE_BUSY, and the driver tries again after a timer.
    if (source === 'begin') {
      const begin = db.prepare('begin immediate');
      return {
        reader: false,
        all: () => [],
        run: () => {
          db.exec('PRAGMA busy_timeout = 0');
          try {
            begin.run();
          } finally {
            db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
          }
          return { changes: 0, lastInsertRowid: 0 };
        },
        iterate: () => [][Symbol.iterator](),
      };
    }
    const sql = source;
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
  return new NodeSqliteDialect({ database: adapter }, checkpointer);
}

/** Kysely's SQLite dialect with {@link LockWaitingDriver}. */
class NodeSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #checkpointer: Checkpointer | undefined;

  constructor(config: SqliteDialectConfig, checkpointer: Checkpointer | undefined) {
    super(config);
    this.#config = config;
    this.#checkpointer = checkpointer;
  }

  override createDriver(): SqliteDriver {
    return new LockWaitingDriver(this.#config, this.#checkpointer);
  }
}

/**
 * Begins a transaction by taking the write lock without sleeping in SQLite: while another process holds
 * it, the attempt is repeated after a timer (1 ms, doubling to 16 ms) until the busy timeout has passed,
 * and the event loop serves this process's sockets meanwhile. The transaction holds Kysely's one
 * connection from the first attempt, so this process's other statements wait their turn behind it, as
 * they would behind a transaction that had begun.
 */
class LockWaitingDriver extends SqliteDriver {
  readonly #checkpointer: Checkpointer | undefined;

  constructor(config: SqliteDialectConfig, checkpointer: Checkpointer | undefined) {
    super(config);
    this.#checkpointer = checkpointer;
  }

  /** Closes the connection, then the checkpointer's last pass leaves the log copied into the file. */
  override async destroy(): Promise<void> {
    await super.destroy();
    await this.#checkpointer?.stop();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, BEGIN_RETRY_MAX_MS)) {
      try {
        await connection.executeQuery(CompiledQuery.raw('begin'));
        return;
      } catch (err) {
        if (!isSqliteBusy(err) || performance.now() >= deadline) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
