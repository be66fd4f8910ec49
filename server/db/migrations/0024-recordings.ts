import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Recorded sessions (issue 22): the cast file is DATA_DIR/recordings/<id>.cast; the row says whose.
  await db.schema
    .createTable('recordings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('sn', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('recordings_org_time').on('recordings').columns(['org_id', 'started_at']).execute();
  // Each organisation's policy: off (default), on, or required (no recording, no shell).
  await db.schema.alterTable('organisations').addColumn('recording_policy', 'text', (c) => c.notNull().defaultTo('off')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organisations').dropColumn('recording_policy').execute();
  await db.schema.dropTable('recordings').execute();
}
