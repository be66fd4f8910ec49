import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A notice as published; the sender's names are copied so the notice outlives the sender's account.
  await db.schema
    .createTable('notices')
    .addColumn('id', ...identityColumn(db))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('send_time', 'bigint', (c) => c.notNull())
    .addColumn('sender_account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('sender_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sender_org_name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // One row per recipient: reading and deleting act on the delivery, never on the notice.
  await db.schema
    .createTable('notice_deliveries')
    .addColumn('id', ...identityColumn(db))
    .addColumn('notice_id', 'integer', (c) => c.notNull().references('notices.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('read_state', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('read_time', 'bigint')
    .execute();
  await db.schema.createIndex('notice_deliveries_notice_account').on('notice_deliveries').unique().columns(['notice_id', 'account_id']).execute();
  await db.schema.createIndex('notice_deliveries_account_read').on('notice_deliveries').columns(['account_id', 'read_state']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notice_deliveries').execute();
  await db.schema.dropTable('notices').execute();
}
