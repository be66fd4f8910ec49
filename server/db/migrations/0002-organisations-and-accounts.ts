import { type Kysely, sql } from 'kysely';

// SQLite takes one ADD COLUMN per ALTER TABLE, so every column is its own statement on both databases.
const textColumns: Record<string, string[]> = {
  organisations: ['alias', 'email', 'phone', 'remark', 'contact_person'],
  accounts: ['email', 'phone'],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, columns] of Object.entries(textColumns)) {
    for (const column of columns) {
      await db.schema
        .alterTable(table)
        .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
        .execute();
    }
  }
  await db.schema.alterTable('organisations').addColumn('expire_time', 'bigint').execute();
  // The organisation's own login account (created with it). Nullable: the seeded root has none, and
  // deleting that account must not be blocked by the cycle accounts.org_id <-> organisations.
  await db.schema
    .alterTable('organisations')
    .addColumn('login_account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .execute();
  // The organisation that owns a role; null means a platform role (the seeded admin role).
  await db.schema
    .alterTable('roles')
    .addColumn('org_id', 'integer', (c) => c.references('organisations.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('organisations_parent').on('organisations').column('parent_id').execute();
  await db.schema.createIndex('accounts_org').on('accounts').column('org_id').execute();
  await db.schema.createIndex('accounts_role').on('accounts').column('role_id').execute();
  await db.schema.createIndex('roles_org').on('roles').column('org_id').execute();
  // Devices are counted per organisation and online state for the organisation list and reports.
  await db.schema.createIndex('devices_org_online').on('devices').columns(['org_id', 'online_state']).execute();
  // Role names are unique regardless of case ("Admin" would pass for "admin" in a list).
  await db.schema.createIndex('roles_name_lower').on('roles').unique().expression(sql`lower(name)`).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['roles_name_lower', 'devices_org_online', 'roles_org', 'accounts_role', 'accounts_org', 'organisations_parent']) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.alterTable('roles').dropColumn('org_id').execute();
  await db.schema.alterTable('organisations').dropColumn('login_account_id').execute();
  await db.schema.alterTable('organisations').dropColumn('expire_time').execute();
  for (const [table, columns] of Object.entries(textColumns)) {
    for (const column of columns) await db.schema.alterTable(table).dropColumn(column).execute();
  }
}
