import { DatabaseSync } from 'node:sqlite';
import { type CompiledQuery, type DatabaseConnection, type QueryResult, SqliteDialect, type SqliteDialectConfig, SqliteDriver, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { type Checkpointer, startCheckpointer, WRITER_CHECKPOINT_CEILING_PAGES } from './checkpointer.ts';

/** Compiled statements kept per database; far more than the distinct statements the server issues. */
const STATEMENT_CACHE_SIZE = 1_000;
/**
 * How long opening the file waits for another process's lock (the worker processes of one node share the
 * file, and switching to WAL needs a lock). After that SQLite never waits inside a call: see
 * {@link LockWaitingConnection}.
 */
const OPEN_BUSY_TIMEOUT_MS = 5_000;
/** How long the start of a transaction waits for another process's write lock. */
const BEGIN_LOCK_WAIT_MS = 5_000;
/** How long a statement outside a transaction waits for it (a flush of another worker can be long). */
const STATEMENT_LOCK_WAIT_MS = 20_000;
/** Longest pause between attempts while another process holds the lock. */
const LOCK_RETRY_MAX_MS = 16;

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
  db.exec(`PRAGMA busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;`);
  // From here on a statement that finds the lock held fails at once, and LockWaitingConnection tries it
  // again after a timer: SQLite's busy handler sleeps inside the call, with this process's event loop
  // stopped (a worker of a node stalled up to 143 ms at a time behind another's telemetry flush, its
  // sockets unread).
  db.exec('PRAGMA busy_timeout = 0');
  const inMemory = file === ':memory:';
  if (checkpoints !== 'commit' && !inMemory) db.exec(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_CEILING_PAGES}`);
  // Started after the switch to WAL, which the thread's connection then finds.
  const checkpointer = checkpoints === 'thread' && !inMemory ? startCheckpointer(file) : undefined;
  type Param = null | number | bigint | string | Uint8Array;
  // Compiling SQL was the largest single CPU cost under device load (profiled in the gateway bench): the
  // same few hundred statements run over and over, so each is compiled once. node:sqlite statements run
  // synchronously, so reuse is safe; iterate() is the exception, so streamed queries get their own.
  const cache = new Map<string, SqliteStatement>();
  const compile = (source: string): SqliteStatement => {
    // Kysely opens transactions with a plain BEGIN, which takes the write lock only at the first write. In
    // WAL mode a second process that committed in between makes that upgrade fail at once with
    // SQLITE_BUSY_SNAPSHOT, which no waiting cures; BEGIN IMMEDIATE takes the lock up front.
    const sql = source === 'begin' ? 'begin immediate' : source;
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
  return new NodeSqliteDialect({ database: adapter }, () => db.isTransaction, checkpointer);
}

/** Kysely's SQLite dialect with {@link LockWaitingDriver}. */
class NodeSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #inTransaction: () => boolean;
  readonly #checkpointer: Checkpointer | undefined;

  constructor(config: SqliteDialectConfig, inTransaction: () => boolean, checkpointer: Checkpointer | undefined) {
    super(config);
    this.#config = config;
    this.#inTransaction = inTransaction;
    this.#checkpointer = checkpointer;
  }

  override createDriver(): SqliteDriver {
    return new LockWaitingDriver(this.#config, this.#inTransaction, this.#checkpointer);
  }
}

/** Kysely's SQLite driver whose one connection is a {@link LockWaitingConnection}. */
class LockWaitingDriver extends SqliteDriver {
  readonly #inTransaction: () => boolean;
  readonly #checkpointer: Checkpointer | undefined;
  #connection: LockWaitingConnection | undefined;

  constructor(config: SqliteDialectConfig, inTransaction: () => boolean, checkpointer: Checkpointer | undefined) {
    super(config);
    this.#inTransaction = inTransaction;
    this.#checkpointer = checkpointer;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // Kysely's runtime driver lets one caller at a time hold the connection (SQLite has one).
    this.#connection ??= new LockWaitingConnection(await super.acquireConnection(), this.#inTransaction);
    return this.#connection;
  }

  /** Closes the connection, then the checkpointer's last pass leaves the log copied into the file. */
  override async destroy(): Promise<void> {
    await super.destroy();
    await this.#checkpointer?.stop();
  }
}

/**
 * Waits for another process's lock on timers, not asleep in SQLite. While another process holds the
 * write lock, a statement outside a transaction (a transaction's begin among them) fails at once with
 * SQLITE_BUSY having changed nothing, and is run again after 1 ms, then 2, 4 ... 16 ms, until its budget
 * is spent; the event loop serves this process's sockets meanwhile. A transaction holds Kysely's one
 * connection from its first attempt, so this process's other statements wait their turn behind it, as
 * they would behind a transaction that had begun. Inside a transaction (which holds the write lock from
 * its begin) an error goes to the caller, which rolls back: its earlier statements would need redoing.
 */
class LockWaitingConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  readonly #inTransaction: () => boolean;

  constructor(inner: DatabaseConnection, inTransaction: () => boolean) {
    this.#inner = inner;
    this.#inTransaction = inTransaction;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let deadline: number | undefined;
    for (let pause = 1; ; pause = Math.min(pause * 2, LOCK_RETRY_MAX_MS)) {
      try {
        return await this.#inner.executeQuery<R>(query);
      } catch (err) {
        if (!isSqliteBusy(err) || this.#inTransaction()) throw err;
        deadline ??= performance.now() + (query.sql === 'begin' ? BEGIN_LOCK_WAIT_MS : STATEMENT_LOCK_WAIT_MS);
        if (performance.now() >= deadline) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** Not retried: a stream is a read, and a reader in WAL mode takes no lock another process holds. */
  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#inner.streamQuery<R>(query, chunkSize);
  }
}
