import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

// Issue 23: API tokens (per account, a subset of its keys, stored as SHA-256), webhooks (per organisation)
// and their deliveries (persisted, so pending ones survive a restart). The operation log names the token a
// request was made with.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', ...identityColumn(db))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    /** Comma-separated permission keys the token may use (never more than its account holds at use time). */
    .addColumn('keys', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_tokens_account').on('api_tokens').columns(['account_id']).execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    /** Comma-separated event names. */
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('account_id', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_org').on('webhooks').columns(['org_id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', ...identityColumn(db))
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    /** The JSON body, exactly as signed and sent. */
    .addColumn('body', 'text', (c) => c.notNull())
    /** pending | delivered | failed */
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_latency_ms', 'integer')
    .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_hook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();

  await db.schema.alterTable('operation_log').addColumn('token_name', 'text', (c) => c.notNull().defaultTo('')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('operation_log').dropColumn('token_name').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
  await db.schema.dropTable('api_tokens').execute();
}
