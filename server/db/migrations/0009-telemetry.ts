import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

// Telemetry and report storage (issue 10). Raw samples are kept for a configurable retention; reports
// read the hourly rollup, the latest state per device and the abnormal records, so their cost does not
// grow with the sample rate.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('telemetry_samples')
    .addColumn('id', ...identityColumn(db))
    .addColumn('sn', 'text', (c) => c.notNull())
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('cpu', 'real', (c) => c.notNull())
    .addColumn('mem_used', 'bigint', (c) => c.notNull())
    .addColumn('mem_total', 'bigint', (c) => c.notNull())
    .addColumn('battery', 'integer')
    .execute();
  await db.schema.createIndex('telemetry_samples_time').on('telemetry_samples').columns(['time']).execute();
  await db.schema.createIndex('telemetry_samples_sn_time').on('telemetry_samples').columns(['sn', 'time']).execute();

  // One row per organisation, model and UTC hour: how many devices reported in that hour and the load sums.
  await db.schema
    .createTable('telemetry_hourly')
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('device_hours', 'integer', (c) => c.notNull())
    .addColumn('samples', 'integer', (c) => c.notNull())
    .addColumn('cpu_sum', 'double precision', (c) => c.notNull())
    .addColumn('mem_sum', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_hourly_pk', ['hour', 'org_id', 'model'])
    .execute();

  // Latest known state of each device: load, and where it is.
  await db.schema
    .createTable('device_telemetry')
    .addColumn('sn', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('time', 'bigint')
    .addColumn('cpu', 'real')
    .addColumn('mem_used', 'bigint')
    .addColumn('mem_total', 'bigint')
    .addColumn('battery', 'integer')
    .addColumn('country', 'text')
    .addColumn('region', 'text')
    .addColumn('lat', 'double precision')
    .addColumn('lng', 'double precision')
    .addColumn('located_at', 'bigint')
    .execute();
  await db.schema.createIndex('device_telemetry_org').on('device_telemetry').columns(['org_id', 'country']).execute();

  await db.schema
    .createTable('abnormal_events')
    .addColumn('id', ...identityColumn(db))
    .addColumn('sn', 'text', (c) => c.notNull())
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('cpu', 'real', (c) => c.notNull())
    .addColumn('memory', 'real', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('abnormal_events_time').on('abnormal_events').columns(['time', 'org_id']).execute();
  // Abnormal records counted per organisation, type and UTC hour, so the report's charts and totals do
  // not scan every record.
  await db.schema
    .createTable('abnormal_hourly')
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('abnormal_hourly_pk', ['hour', 'org_id', 'type'])
    .execute();

  // Console sessions as the usage report sees them; kept after logout, unlike the sessions table.
  await db.schema
    .createTable('usage_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('last_active_at', 'bigint', (c) => c.notNull())
    .addColumn('active_ms', 'bigint', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('usage_sessions_started').on('usage_sessions').columns(['started_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['usage_sessions', 'abnormal_hourly', 'abnormal_events', 'device_telemetry', 'telemetry_hourly', 'telemetry_samples']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
