import pg from 'pg';

/** Where the PostgreSQL used by tests lives; the machines here run one with trust auth. */
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** True when a PostgreSQL server answers at TEST_PG_URL. */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema for one test run, dropped by the returned function. */
export async function freshPgSchema(): Promise<{ schema: string; drop: () => Promise<void> }> {
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  return {
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

export interface DbTarget {
  readonly name: 'sqlite' | 'postgres';
  readonly available: boolean;
}

/** The database targets every storage test runs on. PostgreSQL is required when CI is set. */
export async function dbTargets(): Promise<DbTarget[]> {
  const pgUp = await postgresReachable();
  if (!pgUp && process.env.CI) throw new Error(`CI is set but PostgreSQL is not reachable at ${TEST_PG_URL}`);
  return [
    { name: 'sqlite', available: true },
    { name: 'postgres', available: pgUp },
  ];
}
