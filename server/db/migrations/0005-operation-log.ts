import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// The same migration runs on SQLite and PostgreSQL; only the identity column differs (as in 0001 and 0004).
function identity(db: Kysely<unknown>): [string, (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder] {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? ['integer', (col) => col.primaryKey().generatedByDefaultAsIdentity()]
    : ['integer', (col) => col.primaryKey().autoIncrement()];
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const [idType, idCol] = identity(db);
  // No references to accounts or organisations: the log outlives the rows it names.
  await db.schema
    .createTable('operation_log')
    .addColumn('id', sql.raw(idType), idCol)
    .addColumn('account_id', 'integer')
    .addColumn('account', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('org_id', 'integer')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('code', 'integer', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('operation_log_created_at').on('operation_log').columns(['created_at']).execute();
  await db.schema.createIndex('operation_log_org').on('operation_log').columns(['org_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('operation_log').execute();
}
