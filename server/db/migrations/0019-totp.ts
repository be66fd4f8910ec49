import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

// Issue 23: a TOTP second factor per account (RFC 6238), recovery codes, and an organisation policy that
// requires it of the organisation's accounts.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_totp')
    .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    /** Base32 secret; the authenticator app holds the same. */
    .addColumn('secret', 'text', (c) => c.notNull())
    /** Null while set up but not yet confirmed with a code. */
    .addColumn('enabled_at', 'bigint')
    /** The last 30-second step a code was accepted for: a code is good once. */
    .addColumn('last_step', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('totp_recovery_codes')
    .addColumn('id', ...identityColumn(db))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    /** SHA-256 of the code (high-entropy, shown once). */
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('totp_recovery_codes_account').on('totp_recovery_codes').columns(['account_id']).execute();
  await db.schema.alterTable('organisations').addColumn('require_totp', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organisations').dropColumn('require_totp').execute();
  await db.schema.dropTable('totp_recovery_codes').execute();
  await db.schema.dropTable('account_totp').execute();
}
