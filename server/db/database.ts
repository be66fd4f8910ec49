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
   * False in the worker processes of a node: the primary has migrated already, and several processes
   * racing for the migration lock at start-up would only wait on each other.
   */
  readonly migrate?: boolean;
}

/** Opens the configured database and applies every pending migration (unless told not to). */
export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  let db: Db;
  if (target.databaseUrl) {
    const options = target.pgSchema ? `-c search_path=${target.pgSchema}` : undefined;
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: target.databaseUrl, options, max: 10 }) }) });
  } else {
    fs.mkdirSync(target.dataDir, { recursive: true });
    db = new Kysely<Database>({ dialect: nodeSqliteDialect(path.join(target.dataDir, 'control-center.sqlite')) });
  }
  if (target.migrate === false) return db;
  // Kysely's migrator looks for its bookkeeping tables in every schema unless told which one: without
  // this, a second PostgreSQL schema in the same database (parallel tests) would find the first one's
  // tables, skip creating its own and fail.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(target.pgSchema ? { migrationTableSchema: target.pgSchema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    await db.destroy();
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
  return db;
}
