import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // No references to accounts or organisations: the log outlives the rows it names.
  await db.schema
    .createTable('operation_log')
    .addColumn('id', ...identityColumn(db))
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
