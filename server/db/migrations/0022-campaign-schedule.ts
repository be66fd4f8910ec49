import type { Kysely } from 'kysely';

// Scheduled campaigns and maintenance windows (issue 23): a campaign may start at a time (`start_at`) and
// dispatch only inside a recurring window (`window_json`: days, from, to, time zone; '' for none).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('push_campaigns').addColumn('start_at', 'bigint').execute();
  await db.schema.alterTable('push_campaigns').addColumn('window_json', 'text', (c) => c.notNull().defaultTo('')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('push_campaigns').dropColumn('window_json').execute();
  await db.schema.alterTable('push_campaigns').dropColumn('start_at').execute();
}
