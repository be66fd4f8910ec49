import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organisations')
    .addColumn('id', ...identityColumn(db))
    .addColumn('parent_id', 'integer', (c) => c.references('organisations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enroll_key', 'text', (c) => c.notNull().unique())
    .addColumn('freeze_state', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('roles')
    .addColumn('id', ...identityColumn(db))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', 'integer')
    .execute();
  await db.schema
    .createTable('role_permissions')
    .addColumn('role_id', 'integer', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addColumn('permission', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('role_permissions_pk', ['role_id', 'permission'])
    .execute();
  await db.schema
    .createTable('accounts')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id'))
    .addColumn('role_id', 'integer', (c) => c.notNull().references('roles.id'))
    .addColumn('account', 'text', (c) => c.notNull().unique())
    .addColumn('nickname', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('update_password_last_time', 'bigint', (c) => c.notNull())
    .addColumn('expire_time', 'bigint')
    .addColumn('language', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('customer_type', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();
  await db.schema
    .createTable('devices')
    .addColumn('id', ...identityColumn(db))
    .addColumn('sn', 'text', (c) => c.notNull().unique())
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('system_type', 'text', (c) => c.notNull().defaultTo('android'))
    .addColumn('system_version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('image_version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('network_type', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('online_state', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('device_state', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('latest_online_time', 'bigint')
    .addColumn('offline_time', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('devices_org').on('devices').column('org_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['devices', 'sessions', 'accounts', 'role_permissions', 'roles', 'organisations']) {
    await db.schema.dropTable(table).execute();
  }
}
