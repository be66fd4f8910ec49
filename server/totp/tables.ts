import type { Generated } from 'kysely';

// Table types of the second factor (migration 0019-totp); joined into Database in server/db/schema.ts.

export interface AccountTotpTable {
  account_id: number;
  secret: string;
  enabled_at: number | null;
  last_step: number;
  created_at: number;
}

export interface TotpRecoveryCodeTable {
  id: Generated<number>;
  account_id: number;
  code_hash: string;
  used_at: number | null;
}

export interface TotpTables {
  account_totp: AccountTotpTable;
  totp_recovery_codes: TotpRecoveryCodeTable;
}
