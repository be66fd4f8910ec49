import type { Kysely } from 'kysely';

// The device entity's remaining fields (devices-and-commerce section 3). Texts default to '' and numbers
// to null ("not reported yet"), so devices that never report a field still list cleanly.
const TEXT_COLUMNS = [
  'remark',
  'mcu_version',
  'location',
  'imei',
  'baseband_version',
  'bluetooth_mac',
  'wlan_mac',
  'manufacturer',
  'gnss_model',
  'lte_model',
  'hardware_id',
  'terminal_version',
  /** Comma list of the support flags the device reports as enabled. */
  'support_flags',
] as const;
const NUMBER_COLUMNS = ['install_date', 'uptime', 'battery', 'storage_total', 'storage_free'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite adds one column per ALTER TABLE statement.
  await db.schema
    .alterTable('devices')
    .addColumn('country', 'text', (c) => c.notNull().defaultTo('domestic'))
    .execute();
  for (const name of TEXT_COLUMNS) await db.schema.alterTable('devices').addColumn(name, 'text', (c) => c.notNull().defaultTo('')).execute();
  for (const name of NUMBER_COLUMNS) await db.schema.alterTable('devices').addColumn(name, 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of [...NUMBER_COLUMNS, ...TEXT_COLUMNS, 'country']) await db.schema.alterTable('devices').dropColumn(name).execute();
}
