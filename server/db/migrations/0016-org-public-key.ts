import type { Kysely } from 'kysely';

// An organisation's public key (platform-core section 3, "public key"): PEM or OpenSSH text the
// organisation's own systems sign with; stored as given, empty when none.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organisations').addColumn('public_key', 'text', (c) => c.notNull().defaultTo('')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organisations').dropColumn('public_key').execute();
}
