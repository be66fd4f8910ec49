import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The per-device action timeline (issue 22): one row per command that reached (or was refused for) one
  // device, whoever sent it and by whichever route. Written in batches (server/timeline/writer.ts).
  await db.schema
    .createTable('device_timeline')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('sn', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'bigint', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('msg_id', 'integer', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('result', 'integer', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('recording_id', 'text')
    .execute();
  // A device's entries newest first, within a time range.
  await db.schema.createIndex('device_timeline_sn_time').on('device_timeline').columns(['sn', 'sent_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_timeline').execute();
}
