import { createHash, randomBytes } from 'node:crypto';
import { ADMIN_ROLE, type Clock } from '../protocol/index.ts';
import { hashSecret } from './auth/password.ts';
import type { Db } from './db/database.ts';

export const ADMIN_ACCOUNT = 'admin';
export const PLATFORM_ORG_NAME = 'Platform';

export interface SeedResult {
  /** Enrolment key of the platform organisation, for the fleet simulator. */
  readonly enrollKey: string;
  /** Set only when the admin account was created now with a generated password. */
  readonly generatedPassword: string | undefined;
}

/** The console hashes a typed password with SHA-256 (lowercase hex) before sending it. */
export function clientPasswordHash(password: string): string {
  return createHash('sha256').update(password).digest('hex');
}

/** Creates the platform organisation, the admin role and the admin account when they do not exist yet. */
export async function seed(db: Db, clock: Clock, adminPassword: string | undefined): Promise<SeedResult> {
  const now = clock.now();
  let org = await db.selectFrom('organisations').selectAll().where('parent_id', 'is', null).orderBy('id').executeTakeFirst();
  if (!org) {
    org = await db
      .insertInto('organisations')
      .values({ parent_id: null, name: PLATFORM_ORG_NAME, enroll_key: randomBytes(24).toString('base64url'), created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  let role = await db.selectFrom('roles').selectAll().where('name', '=', ADMIN_ROLE).executeTakeFirst();
  role ??= await db.insertInto('roles').values({ name: ADMIN_ROLE, summary: 'Platform administrator', created_by: null }).returningAll().executeTakeFirstOrThrow();

  const existing = await db.selectFrom('accounts').select('id').where('account', '=', ADMIN_ACCOUNT).executeTakeFirst();
  let generatedPassword: string | undefined;
  if (!existing) {
    // 4-16 letters, digits or underscores, as the login rule requires.
    const password = adminPassword ?? (generatedPassword = randomBytes(9).toString('base64url').replace(/-/g, '_'));
    await db
      .insertInto('accounts')
      .values({
        org_id: org.id,
        role_id: role.id,
        account: ADMIN_ACCOUNT,
        nickname: 'Administrator',
        password_hash: await hashSecret(clientPasswordHash(password)),
        update_password_last_time: now,
        expire_time: null,
        created_at: now,
      })
      .execute();
  }
  return { enrollKey: org.enroll_key, generatedPassword };
}
