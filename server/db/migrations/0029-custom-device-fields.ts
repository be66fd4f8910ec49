import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

// Custom device fields (issue 23): an organisation defines fields (text, number or a choice among options)
// for the devices of its organisation and those below it; each device holds a value per field.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_fields')
    .addColumn('id', ...identityColumn(db))
    .addColumn('org_id', 'integer', (c) => c.notNull().references('organisations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    /** The choices of a select field, JSON array of strings; '[]' otherwise. */
    .addColumn('options_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('device_fields_org_name').on('device_fields').columns(['org_id', 'name']).unique().execute();
  await db.schema
    .createTable('device_field_values')
    .addColumn('field_id', 'integer', (c) => c.notNull().references('device_fields.id').onDelete('cascade'))
    .addColumn('sn', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('device_field_values_pk', ['field_id', 'sn'])
    .execute();
  await db.schema.createIndex('device_field_values_sn').on('device_field_values').columns(['sn']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_field_values').execute();
  await db.schema.dropTable('device_fields').execute();
}
