import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Two levels at most (checked by the routes): a null parent is a first-level category.
  await db.schema
    .createTable('document_categories')
    .addColumn('id', ...identityColumn(db))
    .addColumn('parent_id', 'integer', (c) => c.references('document_categories.id'))
    .addColumn('name_zh', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('name_en', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('document_categories_parent').on('document_categories').columns(['parent_id']).execute();
  // A category with documents cannot be deleted (the routes refuse; the reference backs that up).
  await db.schema
    .createTable('documents')
    .addColumn('id', ...identityColumn(db))
    .addColumn('category_id', 'integer', (c) => c.notNull().references('document_categories.id'))
    .addColumn('title_zh', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('title_en', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content_zh', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content_en', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('documents_category').on('documents').columns(['category_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('documents').execute();
  await db.schema.dropTable('document_categories').execute();
}
