import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { ApiTokenView } from '../../protocol/api/integrations.ts';

/** What an API token adds to the session it resolves to: who it is and the keys it may use. */
export interface ApiTokenGrant {
  readonly id: number;
  readonly name: string;
  /** The keys the token was given; the caller holds only those its account still holds (server/accounts/caller.ts). */
  readonly keys: ReadonlySet<string>;
}

/** Every API token starts with this, so one pasted where it does not belong is recognisable. */
export const API_TOKEN_PREFIX = 'dcc_';

/** A session that never expires by time: a token without an expiry runs until it is revoked. */
const NO_EXPIRY = Number.MAX_SAFE_INTEGER;

/** Last use is written at most this often per token, so a busy integration does not write on every call. */
const LAST_USED_GRANULARITY_MS = 60_000;


/** 32 random bytes (256 bits) with the prefix: far beyond guessing, so a fast unsalted SHA-256 suffices to store it. */
export function newApiToken(): string {
  return API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function apiTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The session an API token's digest stands for, or undefined when it is unknown, revoked or expired.
 * Shaped as server/auth/sessions.ts's Session, which resolves tokens through here.
 */
export async function apiTokenSession(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<{ tokenHash: string; accountId: number; expiresAt: number; apiToken: ApiTokenGrant } | undefined> {
  const row = await db
    .selectFrom('api_tokens')
    .select(['id', 'account_id', 'name', 'keys', 'expires_at', 'last_used_at', 'revoked_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null) return undefined;
  if (row.expires_at !== null && row.expires_at <= now) return undefined;
  if (row.last_used_at === null || row.last_used_at + LAST_USED_GRANULARITY_MS <= now) {
    await db.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  return {
    tokenHash,
    accountId: row.account_id,
    expiresAt: row.expires_at ?? NO_EXPIRY,
    apiToken: { id: row.id, name: row.name, keys: new Set(splitKeys(row.keys)) },
  };
}

function splitKeys(keys: string): string[] {
  return keys.split(',').filter((k) => k !== '');
}

/** API tokens of one account. */
export class ApiTokenRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Stores a new token's digest; returns its id. */
  async create(accountId: number, name: string, tokenHash: string, keys: readonly string[], expiresAt: number | null, now: number): Promise<number> {
    const row = await this.#db
      .insertInto('api_tokens')
      .values({ account_id: accountId, name, token_hash: tokenHash, keys: keys.join(','), expires_at: expiresAt, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async list(accountId: number): Promise<ApiTokenView[]> {
    const rows = await this.#db.selectFrom('api_tokens').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      keys: splitKeys(r.keys),
      expiresAt: r.expires_at,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
      createdAt: r.created_at,
    }));
  }

  /** Revokes one of the account's tokens; its digest, for ending what it has open, or undefined when there is no such token. */
  async revoke(accountId: number, id: number, now: number): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('api_tokens')
      .select(['token_hash', 'revoked_at'])
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.revoked_at === null) await this.#db.updateTable('api_tokens').set({ revoked_at: now }).where('id', '=', id).execute();
    return row.token_hash;
  }
}
