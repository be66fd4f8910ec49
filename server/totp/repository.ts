import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../db/database.ts';

/** What authenticator apps show as the account's issuer. */
const ISSUER = 'Device Control Center';
const PERIOD_S = 30;
/** Codes of the step before and after are accepted too: clocks drift, people type slowly. */
const WINDOW = 1;
const RECOVERY_CODES = 10;

function totpOf(secret: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A recovery code: 10 random base32 characters in two groups (50 bits), easy to type, used once. */
function newRecoveryCode(): string {
  const text = new Secret({ size: 10 }).base32.slice(0, 10).toLowerCase();
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

/** The 30-second step `code` is valid for around `now`, or undefined. */
function stepOf(secret: string, code: string, now: number): number | undefined {
  const delta = totpOf(secret, 'x').validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD_S) + delta;
}

export interface TotpStatus {
  readonly enabled: boolean;
  /** Set up and waiting for the first code. */
  readonly pending: boolean;
  readonly recoveryCodesLeft: number;
}

/** Second-factor state of accounts: every statement of the TOTP area. */
export class TotpRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async status(accountId: number): Promise<TotpStatus> {
    const row = await this.#db.selectFrom('account_totp').select('enabled_at').where('account_id', '=', accountId).executeTakeFirst();
    const left = await this.#db
      .selectFrom('totp_recovery_codes')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return { enabled: !!row && row.enabled_at !== null, pending: !!row && row.enabled_at === null, recoveryCodesLeft: row?.enabled_at ? Number(left.n) : 0 };
  }

  /** A new secret for an account without an enabled factor; undefined when one is enabled already. */
  async setup(accountId: number, label: string, now: number): Promise<{ secret: string; uri: string } | undefined> {
    const current = await this.#db.selectFrom('account_totp').select('enabled_at').where('account_id', '=', accountId).executeTakeFirst();
    if (current?.enabled_at) return undefined;
    const secret = new Secret({ size: 20 }).base32;
    await this.#db.deleteFrom('account_totp').where('account_id', '=', accountId).execute();
    await this.#db.insertInto('account_totp').values({ account_id: accountId, secret, enabled_at: null, last_step: 0, created_at: now }).execute();
    return { secret, uri: totpOf(secret, label).toString() };
  }

  /** Confirms the set-up secret with a code; the recovery codes (shown once), or undefined for a wrong code. */
  async enable(accountId: number, code: string, now: number): Promise<string[] | undefined> {
    const row = await this.#db.selectFrom('account_totp').select(['secret', 'enabled_at']).where('account_id', '=', accountId).executeTakeFirst();
    if (!row || row.enabled_at !== null) return undefined;
    const step = stepOf(row.secret, code, now);
    if (step === undefined) return undefined;
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await this.#db.transaction().execute(async (tx) => {
      await tx.updateTable('account_totp').set({ enabled_at: now, last_step: step }).where('account_id', '=', accountId).execute();
      await tx.deleteFrom('totp_recovery_codes').where('account_id', '=', accountId).execute();
      await tx.insertInto('totp_recovery_codes').values(codes.map((c) => ({ account_id: accountId, code_hash: digest(c), used_at: null }))).execute();
    });
    return codes;
  }

  /** Removes the factor after a valid code (or recovery code); false when the code is wrong. */
  async disable(accountId: number, code: string, now: number): Promise<boolean> {
    if (!(await this.verify(accountId, code, now))) return false;
    await this.#db.deleteFrom('totp_recovery_codes').where('account_id', '=', accountId).execute();
    await this.#db.deleteFrom('account_totp').where('account_id', '=', accountId).execute();
    return true;
  }

  /** True when the account has an enabled factor. */
  async enabled(accountId: number): Promise<boolean> {
    const row = await this.#db.selectFrom('account_totp').select('enabled_at').where('account_id', '=', accountId).executeTakeFirst();
    return !!row && row.enabled_at !== null;
  }

  /**
   * Checks a login's second factor: a current code not used before (its step is later than the last one
   * accepted, claimed with a conditional update so two logins cannot share one code), or an unused
   * recovery code, which is then spent.
   */
  async verify(accountId: number, code: string, now: number): Promise<boolean> {
    const row = await this.#db.selectFrom('account_totp').select(['secret', 'enabled_at', 'last_step']).where('account_id', '=', accountId).executeTakeFirst();
    if (!row || row.enabled_at === null) return false;
    const typed = code.trim().replace(/\s+/g, '');
    if (/^\d{6}$/.test(typed)) {
      const step = stepOf(row.secret, typed, now);
      if (step === undefined || step <= Number(row.last_step)) return false;
      const res = await this.#db.updateTable('account_totp').set({ last_step: step }).where('account_id', '=', accountId).where('last_step', '<', step).executeTakeFirst();
      return Number(res.numUpdatedRows) === 1;
    }
    const res = await this.#db
      .updateTable('totp_recovery_codes')
      .set({ used_at: now })
      .where('account_id', '=', accountId)
      .where('code_hash', '=', digest(typed.toLowerCase()))
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) >= 1;
  }

  /** Sets an organisation's policy. */
  async setPolicy(orgId: number, required: boolean): Promise<void> {
    await this.#db.updateTable('organisations').set({ require_totp: required ? 1 : 0 }).where('id', '=', orgId).execute();
  }

  async policy(orgId: number): Promise<boolean> {
    const row = await this.#db.selectFrom('organisations').select('require_totp').where('id', '=', orgId).executeTakeFirst();
    return row?.require_totp === 1;
  }
}
