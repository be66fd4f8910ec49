import { formatMessage } from '../../protocol/index.ts';

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

/** What a request is told while the database cannot be reached (code 50000); not a spec message. */
export const DATABASE_UNAVAILABLE = formatMessage('en', 'common.databaseUnavailable');

// SQLSTATEs of a lost or refused connection: class 08 (connection exception), and the server shutting
// down, crashed or not yet accepting connections (57P01-57P03).
const LOST_SQLSTATE = /^(08|57P0[123])/;
// Socket errors on the way to the database, and the texts pg gives a connection that ended under a
// query, one that could not open in time, and one already known dead.
const LOST_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const LOST_TEXT = /^Connection terminated|timeout exceeded when trying to connect|not queryable/;

/**
 * True when a query failed because the database could not be reached or dropped the connection (a
 * restart, a failover, an administrator ending the backend), not because of the query itself. Such a
 * failure answers code 50000 with {@link DATABASE_UNAVAILABLE}; the pool reconnects for later requests.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as Error & { code?: unknown }).code;
  if (typeof code === 'string' && (LOST_SQLSTATE.test(code) || LOST_ERRNO.has(code))) return true;
  // A connection that could not be opened at all: pg rejects with the socket's error, sometimes wrapped
  // by Node in an AggregateError (one attempt per address of a host name).
  if (err instanceof AggregateError) return err.errors.some(isDatabaseUnavailable);
  return LOST_TEXT.test(err.message);
}
