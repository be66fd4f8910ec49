import type { Generated } from 'kysely';

// Table types of API tokens (migration 0015-api-tokens-and-webhooks); joined into Database in server/db/schema.ts.

export interface ApiTokenTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** SHA-256 (hex) of the token; the token itself is shown once and never stored. */
  token_hash: string;
  /** Comma-separated permission keys. */
  keys: string;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface ApiTokenTables {
  api_tokens: ApiTokenTable;
}
