import { type RawBuilder, type SqlBool, sql } from 'kysely';

/**
 * `column` contains `needle`, ignoring case, with LIKE wildcards in the needle taken literally. The
 * ESCAPE clause is explicit because SQLite, unlike PostgreSQL, has no default escape character.
 */
export function containsIgnoringCase(column: string, needle: string): RawBuilder<SqlBool> {
  const pattern = `%${needle.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
