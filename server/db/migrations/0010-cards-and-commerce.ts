import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Directional service groups: a card on a directional combo reaches only its group's addresses.
  await db.schema
    .createTable('direction_groups')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('remark', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('direction_groups_org').on('direction_groups').column('org_id').execute();

  // One target address of a group. The carrier applies an added or removed address after a delay:
  // `effective_at` is when the pending state (100 adding, 200 removing) settles.
  await db.schema
    .createTable('direction_addresses')
    .addColumn('id', ...identityColumn(db))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('direction_groups.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('address_type', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('import_type', 'text', (c) => c.notNull())
    .addColumn('state', 'integer', (c) => c.notNull())
    .addColumn('effective_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('direction_addresses_group').on('direction_addresses').column('group_id').execute();

  // Every card of the three families in one table; each family's own status columns are null for the others.
  await db.schema
    .createTable('sim_cards')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('family', 'text', (c) => c.notNull())
    .addColumn('iccid', 'text', (c) => c.notNull().unique())
    .addColumn('msisdn', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('imsi', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('card_type', 'text', (c) => c.notNull())
    .addColumn('combo_type', 'text', (c) => c.notNull())
    .addColumn('spring_status', 'text')
    .addColumn('card_status', 'integer')
    .addColumn('real_status', 'integer')
    .addColumn('juxin_status', 'integer')
    .addColumn('status_reason', 'text', (c) => c.notNull())
    .addColumn('status_changed_at', 'bigint', (c) => c.notNull())
    // Usage is settled into used_bytes at every status change; between changes it accrues at daily_rate_bytes.
    .addColumn('used_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('usage_since', 'bigint', (c) => c.notNull())
    .addColumn('daily_rate_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota_bytes', 'bigint', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addColumn('apn', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('certification', 'text', (c) => c.notNull())
    .addColumn('form_factor', 'text', (c) => c.notNull())
    .addColumn('group_id', 'integer', (c) => c.references('direction_groups.id').onDelete('set null'))
    .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('device_sn', 'text', (c) => c.notNull().defaultTo(''))
    // Stop/restart counter of the current China day (the carriers' day), for the 2-a-day rule.
    .addColumn('action_day', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('action_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('activated_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sim_cards_org_family').on('sim_cards').columns(['org_id', 'family']).execute();

  // Status history of a card: what changed, why, and who asked.
  await db.schema
    .createTable('sim_card_events')
    .addColumn('id', ...identityColumn(db))
    .addColumn('card_id', 'integer', (c) => c.notNull().references('sim_cards.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('from_status', 'text', (c) => c.notNull())
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('sim_card_events_card').on('sim_card_events').columns(['card_id', 'at']).execute();

  // Orders and bills: one row per purchase; money in integer minor units (fen). `lines` and `logistics`
  // are JSON texts: what was bought is fixed at creation, never queried by field.
  await db.schema
    .createTable('commerce_orders')
    .addColumn('id', ...identityColumn(db))
    .addColumn('order_no', 'text', (c) => c.notNull().unique())
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('account', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('trade_state', 'text', (c) => c.notNull())
    .addColumn('pay_method', 'text')
    // 1 while an offline transfer waits for staff to confirm it.
    .addColumn('offline_pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('trade_no', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('real_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('invoiced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invoice', 'text')
    .addColumn('lines', 'text', (c) => c.notNull())
    .addColumn('logistics', 'text')
    .addColumn('bill_month', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .addColumn('closed_at', 'bigint')
    .addColumn('confirmed_by', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('commerce_orders_org_created').on('commerce_orders').columns(['org_id', 'created_at']).execute();

  // ISOBUS licence (activation) codes: 0 unused, 1 used, 2 distributed.
  await db.schema
    .createTable('licences')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('validity_ms', 'bigint', (c) => c.notNull())
    .addColumn('device_sn', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('order_no', 'text')
    .addColumn('operated_at', 'bigint', (c) => c.notNull())
    .addColumn('expire_time', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('licences_org_status').on('licences').columns(['org_id', 'status']).execute();

  // Order demand forms: fittings and dynamic fields are JSON texts, fixed per demand.
  await db.schema
    .createTable('order_demands')
    .addColumn('id', ...identityColumn(db))
    .addColumn('number', 'text', (c) => c.notNull().unique())
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('fittings', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('additional_quantity', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('special_needs', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('state', 'integer', (c) => c.notNull())
    .addColumn('reject_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('parent_number', 'text')
    .addColumn('share_token', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_demands_org_created').on('order_demands').columns(['org_id', 'created_at']).execute();

  // True-point (high-precision positioning) service accounts and the equipment using them.
  await db.schema
    .createTable('truepoint_accounts')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('account_no', 'text', (c) => c.notNull().unique())
    .addColumn('password', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('precision', 'text', (c) => c.notNull())
    .addColumn('charge_type', 'text', (c) => c.notNull())
    .addColumn('duration_days', 'integer', (c) => c.notNull())
    .addColumn('service_state', 'integer', (c) => c.notNull())
    .addColumn('activation_mode', 'integer', (c) => c.notNull())
    .addColumn('account_state', 'integer', (c) => c.notNull())
    .addColumn('times', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('activated_at', 'bigint')
    .addColumn('expire_time', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('truepoint_equipment')
    .addColumn('id', ...identityColumn(db))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('truepoint_accounts.id').onDelete('cascade'))
    .addColumn('equipment_id', 'text', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('truepoint_equipment').execute();
  await db.schema.dropTable('truepoint_accounts').execute();
  await db.schema.dropTable('order_demands').execute();
  await db.schema.dropTable('licences').execute();
  await db.schema.dropTable('commerce_orders').execute();
  await db.schema.dropTable('sim_card_events').execute();
  await db.schema.dropTable('sim_cards').execute();
  await db.schema.dropTable('direction_addresses').execute();
  await db.schema.dropTable('direction_groups').execute();
}
