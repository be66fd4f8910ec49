import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import type { Database } from './schema.ts';
import { nodeSqliteDialect } from './sqlite-dialect.ts';
import { migrations } from './migrations/index.ts';

export type Db = Kysely<Database>;

// pg returns int8 as strings by default; our bigint columns hold epoch milliseconds, well inside 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DatabaseTarget {
  /** PostgreSQL connection string; when absent the embedded SQLite file under dataDir is used. */
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves this way). */
  readonly pgSchema?: string | undefined;
  /**
   * SQLite only: the database lives in memory, on the one connection, and ends with it; nothing is written
   * under dataDir. For nodes built without listening (REST tests through `app.inject()`), never a real node.
   */
  readonly inMemory?: boolean;
  /**
   * False in the worker processes of a node: the primary has migrated already, and several processes
   * racing for the migration lock at start-up would only wait on each other.
   */
  readonly migrate?: boolean;
  /**
   * SQLite file only: who copies the write-ahead log into the file (see CheckpointMode). A node's one
   * process, or its primary, runs the checkpointer thread (the default); its worker processes leave it to
   * the primary.
   */
  readonly checkpoints?: 'thread' | 'elsewhere';
  /**
   * Where a lost PostgreSQL connection is reported. Without a listener such a connection's error event
   * ended the process; with one, the pool drops the connection and opens a new one when next needed.
   */
  readonly log?: DatabaseLog;
}

/** The part of a logger the database needs. */
export interface DatabaseLog {
  warn(obj: object, msg: string): void;
}

/** PostgreSQL's application_name (63 bytes at most): names the schema too, so an operator, or a test, can tell a node's connections apart. */
export function applicationName(pgSchema: string | undefined): string {
  return `device-control-center${pgSchema ? `:${pgSchema}` : ''}`.slice(0, 63);
}

/**
 * A pg pool that survives its connections dying (a database restart, a failover, an administrator's
 * pg_terminate_backend). pg reports a dead idle connection on the pool and a dead checked-out one on
 * the client; both are `error` events, which end the process when nobody listens. The queries in
 * flight fail on their own (the routes answer code 50000, see server/db/errors.ts), and the pool opens
 * new connections for the next ones, so the node recovers by itself when the database is back.
 */
function resilientPool(target: DatabaseTarget & { databaseUrl: string }): pg.Pool {
  const log = target.log ?? { warn: (obj: object, msg: string) => console.warn(msg, obj) };
  const pool = new pg.Pool({
    connectionString: target.databaseUrl,
    options: target.pgSchema ? `-c search_path=${target.pgSchema}` : undefined,
    application_name: applicationName(target.pgSchema),
    max: 10,
    // While the database is unreachable a request waits this long for a connection, then answers 50000,
    // instead of hanging for the operating system's TCP timeout.
    connectionTimeoutMillis: 10_000,
    // Finds connections a failover left half-open, which would otherwise wait forever on a dead peer.
    keepAlive: true,
  });
  // Not the error itself: pg-pool hangs the whole client on it (err.client), which a logger would walk.
  const lost = (err: Error) => log.warn({ reason: err.message, code: (err as Error & { code?: unknown }).code }, 'database connection lost');
  // An idle connection's error reaches the pool (and is logged once, here). A checked-out one's reaches
  // only its client: the query it was running fails and is reported with the request.
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Opens the configured database and applies every pending migration (unless told not to). */
export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  let db: Db;
  if (target.databaseUrl) {
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: resilientPool({ ...target, databaseUrl: target.databaseUrl }) }) });
  } else if (target.inMemory) {
    db = new Kysely<Database>({ dialect: nodeSqliteDialect(':memory:') });
  } else {
    fs.mkdirSync(target.dataDir, { recursive: true });
    db = new Kysely<Database>({ dialect: nodeSqliteDialect(path.join(target.dataDir, 'control-center.sqlite'), target.checkpoints ?? 'thread') });
  }
  if (target.migrate === false) return db;
  // Kysely's migrator looks for its bookkeeping tables in every schema unless told which one: without
  // this, a second PostgreSQL schema in the same database (parallel tests) would find the first one's
  // tables, skip creating its own and fail.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(target.pgSchema ? { migrationTableSchema: target.pgSchema } : {}) });
  let outcome = await migrator.migrateToLatest();
  // The migrator's table check lists the tables of every schema; a schema dropped by someone else between
  // its listing and its reading (parallel test runs dropping their throwaway schemas) fails it with
  // 3F000 before any migration ran. Nothing of ours is wrong then: look again.
  for (let retry = 0; retry < 20 && schemaVanished(outcome.error, target.pgSchema); retry++) {
    await new Promise((r) => setTimeout(r, Math.min(500, 25 * (retry + 1))));
    outcome = await migrator.migrateToLatest();
  }
  const { error, results } = outcome;
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    await db.destroy();
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
  return db;
}

/** True when `err` is PostgreSQL's "schema does not exist" for a schema other than this installation's. */
function schemaVanished(err: unknown, ours: string | undefined): boolean {
  if (!(err instanceof Error) || (err as Error & { code?: unknown }).code !== '3F000') return false;
  return ours === undefined || !err.message.includes(`"${ours}"`);
}
