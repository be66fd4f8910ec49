import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

// Dynamic groups and saved views of the device list (issue 23).
export async function up(db: Kysely<unknown>): Promise<void> {
  // A dynamic group is a named query over the devices of its organisation (and below); members are never stored.
  await db.schema
    .createTable('device_groups')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('account_id', 'integer')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('query_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('device_groups_org_name').on('device_groups').columns(['org_id', 'name']).unique().execute();
  // A campaign started for a group follows it: devices that join the group while it runs are added.
  await db.schema.alterTable('push_campaigns').addColumn('group_id', 'integer').execute();
  // A saved view of the device list: filters, columns and sort, private to its account or shared in its organisation.
  await db.schema
    .createTable('device_views')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('shared', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('state_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('device_views_account').on('device_views').columns(['account_id']).execute();
  await db.schema.createIndex('device_views_org').on('device_views').columns(['org_id', 'shared']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_views').execute();
  await db.schema.alterTable('push_campaigns').dropColumn('group_id').execute();
  await db.schema.dropTable('device_groups').execute();
}
