import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql, type RawBuilder } from 'kysely';

/**
 * The identity column, the one place where a migration's SQL differs between SQLite and PostgreSQL.
 * Use as `.addColumn('id', ...identityColumn(db))`.
 */
export function identityColumn(db: Kysely<unknown>): [RawBuilder<unknown>, (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder] {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? [sql.raw('integer'), (col) => col.primaryKey().generatedByDefaultAsIdentity()]
    : [sql.raw('integer'), (col) => col.primaryKey().autoIncrement()];
}
