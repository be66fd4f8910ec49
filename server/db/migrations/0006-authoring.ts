import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { identityColumn } from './identity.ts';

const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  await orgTreeVersion(db);

  // Scheduled notices: a notice is written at once and delivered (deliveries inserted) when its send time
  // comes. 0 scheduled, 1 delivered. Existing notices were delivered when published.
  await db.schema.alterTable('notices').addColumn('state', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  // 1: every organisation in the publisher's subtree at delivery time; 0: the organisations in notice_targets.
  await db.schema.alterTable('notices').addColumn('to_all', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('notices').addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  // The publishing organisation: authoring lists are scoped by it, and "to all" means its subtree.
  await db.schema.alterTable('notices').addColumn('sender_org_id', 'integer', (c) => c.references('organisations.id').onDelete('set null')).execute();
  await db.schema.createIndex('notices_state_send').on('notices').columns(['state', 'send_time']).execute();
  await db.schema
    .createTable('notice_targets')
    .addColumn('notice_id', 'integer', (c) => c.notNull().references('notices.id').onDelete('cascade'))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('notice_targets_pk', ['notice_id', 'org_id'])
    .execute();
  // Attachment bytes live in the database, so every node of a cluster serves them and no file path is
  // ever built from user input. Uploaded first (notice_id null), bound to a notice when it is published.
  await db.schema
    .createTable('notice_attachments')
    .addColumn('id', ...identityColumn(db))
    .addColumn('notice_id', 'integer', (c) => c.references('notices.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('bytes', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('uploaded_by', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notice_attachments_notice').on('notice_attachments').columns(['notice_id']).execute();

  // Documents keep what the author wrote (Markdown or HTML) beside the sanitised HTML readers get.
  await db.schema.alterTable('documents').addColumn('format', 'text', (c) => c.notNull().defaultTo('html')).execute();
  await db.schema.alterTable('documents').addColumn('source_zh', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('documents').addColumn('source_en', 'text', (c) => c.notNull().defaultTo('')).execute();
}

/**
 * A counter bumped by the database itself on every change to the organisation tree (insert, delete, a new
 * parent or freeze state), whoever writes: this node, another node, a seed script or a test. Nodes cache
 * the tree and reload it only when the counter moved, which one tiny read per request tells them.
 */
async function orgTreeVersion(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('org_tree_version').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('version', 'bigint', (c) => c.notNull()).execute();
  await sql`insert into org_tree_version (id, version) values (1, 1)`.execute(db);
  if (isPostgres(db)) {
    await sql`create function org_tree_bump() returns trigger language plpgsql as $$
      begin update org_tree_version set version = version + 1 where id = 1; return null; end $$`.execute(db);
    await sql`create trigger org_tree_bump after insert or delete or update of parent_id, freeze_state on organisations
      for each statement execute function org_tree_bump()`.execute(db);
    return;
  }
  for (const [name, event] of [
    ['org_tree_bump_insert', 'insert'],
    ['org_tree_bump_delete', 'delete'],
    ['org_tree_bump_update', 'update of parent_id, freeze_state'],
  ] as const) {
    await sql
      .raw(`create trigger ${name} after ${event} on organisations begin update org_tree_version set version = version + 1 where id = 1; end`)
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['source_en', 'source_zh', 'format']) await db.schema.alterTable('documents').dropColumn(column).execute();
  await db.schema.dropTable('notice_attachments').execute();
  await db.schema.dropTable('notice_targets').execute();
  await db.schema.dropIndex('notices_state_send').execute();
  for (const column of ['sender_org_id', 'created_at', 'to_all', 'state']) await db.schema.alterTable('notices').dropColumn(column).execute();
  if (isPostgres(db)) {
    await sql`drop trigger org_tree_bump on organisations`.execute(db);
    await sql`drop function org_tree_bump()`.execute(db);
  } else {
    for (const name of ['org_tree_bump_insert', 'org_tree_bump_delete', 'org_tree_bump_update']) await sql.raw(`drop trigger ${name}`).execute(db);
  }
  await db.schema.dropTable('org_tree_version').execute();
}
