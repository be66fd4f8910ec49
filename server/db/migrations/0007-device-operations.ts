import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Commands held for offline devices (issue 5): delivered at most once when the device returns, or
  // expired when their time-to-live passes first.
  await db.schema
    .createTable('device_operations')
    .addColumn('id', ...identityColumn(db))
    .addColumn('sn', 'text', (c) => c.notNull())
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('msg_id', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('null'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('result', 'integer')
    .addColumn('reply', 'text')
    .addColumn('account_id', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('device_operations_sn_state').on('device_operations').columns(['sn', 'state']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_operations').execute();
}
