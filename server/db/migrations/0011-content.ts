import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Firmware images, apps, files and folders, logos and animations, wallpapers: one table because they
  // share the stored-file columns and the push path; each kind's own columns stay empty for the others.
  await db.schema
    .createTable('content_items')
    .addColumn('id', ...identityColumn(db))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('parent_id', 'integer')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('remark', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sha256', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('item_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('model_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('gnss_model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('source', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('system_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('offline_install', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_install', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('package_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version_code', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('state', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('content_items_kind_org').on('content_items').columns(['kind', 'org_id']).execute();
  await db.schema.createIndex('content_items_package').on('content_items').columns(['org_id', 'package_name']).execute();

  // Coupon balance per organisation; the ledger is the truth, the balance its running sum.
  await db.schema
    .createTable('push_coupons')
    .addColumn('org_id', 'integer', (c) => c.primaryKey().references('organisations.id').onDelete('cascade'))
    .addColumn('balance', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unit_price_cents', 'integer', (c) => c.notNull().defaultTo(100))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // A push charge is unique per (campaign, device): a retry or a restart cannot charge a device twice.
  await db.schema
    .createTable('push_coupon_ledger')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('delta', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('order_no', 'text')
    .addColumn('amount_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('campaign_id', 'integer')
    .addColumn('sn', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_coupon_ledger_charge').on('push_coupon_ledger').unique().columns(['campaign_id', 'sn']).execute();
  await db.schema.createIndex('push_coupon_ledger_org').on('push_coupon_ledger').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('push_campaigns')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('content_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('content_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_retries', 'integer', (c) => c.notNull())
    .addColumn('offline_window_ms', 'bigint', (c) => c.notNull())
    // Staged rollout: devices split into stages of `stage_size` (0: one stage); the next stage opens when
    // `success_percent` of the current one succeeded; `error_percent` failed pauses the whole campaign.
    .addColumn('stage_size', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('current_stage', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('success_percent', 'integer', (c) => c.notNull().defaultTo(100))
    .addColumn('error_percent', 'integer', (c) => c.notNull().defaultTo(100))
    .addColumn('approved_by', 'integer')
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_campaigns_state').on('push_campaigns').column('state').execute();

  // One device of a campaign. `phase` is the runner's own bookkeeping; the other states are the spec's.
  await db.schema
    .createTable('push_targets')
    .addColumn('id', ...identityColumn(db))
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('push_campaigns.id').onDelete('cascade'))
    .addColumn('sn', 'text', (c) => c.notNull())
    .addColumn('stage', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('push_result', 'integer', (c) => c.notNull())
    .addColumn('download_state', 'integer', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('install_result', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_targets_campaign_sn').on('push_targets').unique().columns(['campaign_id', 'sn']).execute();
  await db.schema.createIndex('push_targets_phase').on('push_targets').columns(['phase', 'next_attempt_at']).execute();
  await db.schema.createIndex('push_targets_sn').on('push_targets').columns(['sn', 'updated_at']).execute();

  // Custom firmware orders (state 0-7, transitions in server/content/custom-orders.ts).
  await db.schema
    .createTable('custom_firmware_orders')
    .addColumn('id', ...identityColumn(db))
    .addColumn('order_no', 'text', (c) => c.notNull().unique())
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('state', 'integer', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('actual_amount_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deadline', 'bigint')
    .addColumn('attachment_id', 'integer')
    .addColumn('attachment_description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('assessment', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('refuse_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['custom_firmware_orders', 'push_targets', 'push_campaigns', 'push_coupon_ledger', 'push_coupons', 'content_items']) {
    await db.schema.dropTable(table).execute();
  }
}
