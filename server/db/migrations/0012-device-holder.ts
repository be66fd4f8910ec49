import type { Kysely } from 'kysely';

// Which gateway node holds each online device (issue 5, scale-out). A node that dies without closing its
// sockets cannot mark its devices offline; the surviving nodes find them by this column.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('devices').addColumn('node_id', 'text').execute();
  await db.schema.createIndex('devices_node_id').on('devices').columns(['node_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('devices_node_id').execute();
  await db.schema.alterTable('devices').dropColumn('node_id').execute();
}
