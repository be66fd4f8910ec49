import type { Kysely } from 'kysely';

// The operation log names its target as it was when the call ran ("Delete role" of "auditors", not only
// id 12): read before the handler runs, so a deleted target keeps its name in the log.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('operation_log').addColumn('target_name', 'text', (c) => c.notNull().defaultTo('')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('operation_log').dropColumn('target_name').execute();
}
