/**
 * True when a write failed on a unique constraint. Checked after the friendly "already exists" lookup,
 * for the race where two requests insert the same name at once.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as Error & { code?: unknown }).code;
  // PostgreSQL: SQLSTATE 23505. node:sqlite: a generic error whose text names the constraint.
  return code === '23505' || /UNIQUE constraint failed/.test(err.message);
}
