import type { Kysely } from 'kysely';

// A device's secret not yet used (issue 21's stall): 1 from its issue at enrolment until the device first
// logs in with it. Until then the device may enrol again with its organisation's key, as one whose login
// reply (which carries the secret) was lost must; after, only its secret lets it in. Devices enrolled
// before this column have used theirs (0).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').addColumn('secret_pending', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('secret_pending').execute();
}
