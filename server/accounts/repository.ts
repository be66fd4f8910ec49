import { sql } from 'kysely';
import { hashSecret, verifySecret } from '../auth/password.ts';
import type { Db } from '../db/database.ts';

export interface NewAccountInput {
  readonly orgId: number;
  readonly roleId: number;
  readonly account: string;
  readonly nickname: string;
  readonly email: string;
  readonly phone: string;
  /** scrypt of the client-side SHA-256 ({@link hashSecret}), made before any transaction opens. */
  readonly passwordHash: string;
  readonly expireTime: number | null;
  readonly now: number;
}

/**
 * True when an account name is taken, ignoring case: "Admin" beside "admin" would pass for it in every
 * list. Login still matches the name as typed; the unique index on lower(account) (migration 0014) settles
 * a race between two creations.
 */
export async function accountNameTaken(db: Db, account: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where(sql<boolean>`lower(account) = ${account.toLowerCase()}`).executeTakeFirst();
  return row !== undefined;
}

/** Inserts an account; `db` may be a transaction, which is why the password comes already hashed. */
export async function insertAccount(db: Db, input: NewAccountInput): Promise<number> {
  const row = await db
    .insertInto('accounts')
    .values({
      org_id: input.orgId,
      role_id: input.roleId,
      account: input.account,
      nickname: input.nickname,
      email: input.email,
      phone: input.phone,
      password_hash: input.passwordHash,
      update_password_last_time: input.now,
      expire_time: input.expireTime,
      created_at: input.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Replaces an account's password and records when (the 30-day reminder counts from it). */
export async function setAccountPassword(db: Db, accountId: number, hashedPassword: string, now: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ password_hash: await hashSecret(hashedPassword), update_password_last_time: now })
    .where('id', '=', accountId)
    .execute();
}

/** True when the client-side hash matches the account's stored password. */
export async function checkAccountPassword(db: Db, accountId: number, hashedPassword: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('password_hash').where('id', '=', accountId).executeTakeFirst();
  return row !== undefined && (await verifySecret(hashedPassword, row.password_hash));
}

/** The organisation an account belongs to, or undefined when there is no such account. */
export async function accountOrg(db: Db, accountId: number): Promise<number | undefined> {
  const row = await db.selectFrom('accounts').select('org_id').where('id', '=', accountId).executeTakeFirst();
  return row?.org_id;
}

/** The id and stored password hash of the account named `account`, for the login to check. */
export async function loginCredentials(db: Db, account: string): Promise<{ id: number; password_hash: string } | undefined> {
  return db.selectFrom('accounts').select(['id', 'password_hash']).where('account', '=', account).executeTakeFirst();
}

/** Stores an account's language (1 Chinese, 2 English). */
export async function setAccountLanguage(db: Db, accountId: number, language: 1 | 2): Promise<void> {
  await db.updateTable('accounts').set({ language }).where('id', '=', accountId).execute();
}
