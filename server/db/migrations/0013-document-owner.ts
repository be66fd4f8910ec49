import { type Kysely, sql } from 'kysely';

// Document-library categories and documents belong to an organisation (security issue, item 6): authors edit
// only what their organisation (or one below it) owns, and platform documents only the platform. Everything
// written before this belonged to nobody and was the platform's library, so it becomes the root
// organisation's. An organisation's documents go with it.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['document_categories', 'documents']) {
    // Nullable at the database level (SQLite cannot add a NOT NULL column without a default); the routes always
    // set it, and a row without an owner is shown to no one.
    await db.schema
      .alterTable(table)
      .addColumn('org_id', 'integer', (c) => c.references('organisations.id').onDelete('cascade'))
      .execute();
    await sql`update ${sql.table(table)} set org_id = (select id from organisations where parent_id is null order by id limit 1)`.execute(db);
    await db.schema.createIndex(`${table}_org`).on(table).columns(['org_id']).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['documents', 'document_categories']) {
    await db.schema.dropIndex(`${table}_org`).execute();
    await db.schema.alterTable(table).dropColumn('org_id').execute();
  }
}
