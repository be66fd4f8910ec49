import type { Kysely } from 'kysely';

// Reserved so that areas built in parallel never renumber each other's migrations; filled by its area.
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
