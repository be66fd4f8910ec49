import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Who watched a recorded session and when (issue 22): one row per replay or download of a recording.
  await db.schema
    .createTable('recording_views')
    .addColumn('id', ...identityColumn(db))
    .addColumn('recording_id', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recording_views_recording').on('recording_views').columns(['recording_id', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recording_views').execute();
}
