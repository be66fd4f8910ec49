import { createHash, randomBytes } from 'node:crypto';
import mitt from 'mitt';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { apiTokenSession, type ApiTokenGrant } from '../api-tokens/repository.ts';
import { prepared } from '../db/prepared.ts';

export interface Session {
  readonly tokenHash: string;
  readonly accountId: number;
  readonly expiresAt: number;
  /** Set when the caller presented an API token (issue 23) rather than a login session. */
  readonly apiToken?: ApiTokenGrant;
}

type SessionEvents = { ended: { tokenHash: string; accountId: number } };

/** SHA-256 of a token, as sessions are stored and matched. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// Every API call reads its session: compiled once (server/db/prepared.ts).
const sessionRow = prepared((db, tokenHash: string) => db.selectFrom('sessions').select(['token_hash', 'account_id', 'expires_at']).where('token_hash', '=', tokenHash));

/**
 * Opaque server-side sessions. Ending a session (logout, kick-out) takes effect at once for HTTP and
 * tells listeners, so the gateway can close that session's sockets.
 */
export class SessionStore {
  readonly events = mitt<SessionEvents>();
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ttlMs: number;

  constructor(db: Db, clock: Clock, ttlMs: number) {
    this.#db = db;
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** Opens a session and returns its token; only the token's digest is stored. */
  async open(accountId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.#clock.now();
    await this.#db
      .insertInto('sessions')
      .values({ token_hash: tokenDigest(token), account_id: accountId, created_at: now, expires_at: now + this.#ttlMs })
      .execute();
    return token;
  }

  /** The live session of a token, or undefined when unknown or expired. */
  async resolve(token: string): Promise<Session | undefined> {
    return this.byDigest(tokenDigest(token));
  }

  /**
   * The session stored under a token's digest, or undefined when it ended or expired: what an open socket,
   * which kept only the digest, checks when it reloads its rights.
   */
  async byDigest(tokenHash: string): Promise<Session | undefined> {
    const row = (await sessionRow(this.#db, tokenHash)).rows[0];
    // Not a login session: perhaps an API token, which resolves through the same path (server/api-tokens).
    if (!row) return apiTokenSession(this.#db, tokenHash, this.#clock.now());
    if (!this.live(row.expires_at)) return undefined;
    return { tokenHash: row.token_hash, accountId: row.account_id, expiresAt: row.expires_at };
  }

  /** True when a session expiring at `expiresAt` has not expired yet. */
  live(expiresAt: number): boolean {
    return expiresAt > this.#clock.now();
  }

  /** Ends one session. */
  async end(session: Session): Promise<void> {
    await this.#db.deleteFrom('sessions').where('token_hash', '=', session.tokenHash).execute();
    this.events.emit('ended', { tokenHash: session.tokenHash, accountId: session.accountId });
  }

  /**
   * Ends every session of an account (kick-out, password reset, account removal), except the one with
   * digest `keepTokenHash` when given; returns how many ended.
   */
  async endAllFor(accountId: number, keepTokenHash?: string): Promise<number> {
    let q = this.#db.deleteFrom('sessions').where('account_id', '=', accountId);
    if (keepTokenHash !== undefined) q = q.where('token_hash', '!=', keepTokenHash);
    const rows = await q.returning('token_hash').execute();
    // One event per session: listeners close sockets by token, not by account.
    for (const row of rows) this.events.emit('ended', { tokenHash: row.token_hash, accountId });
    return rows.length;
  }
}
