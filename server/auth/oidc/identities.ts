import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { accountNameTaken, insertAccount } from '../../accounts/repository.ts';
import type { Db } from '../../db/database.ts';
import { orgPathOf } from '../../permits/assignable.ts';
import { holdableIn } from '../../permits/grants.ts';
import { hashSecret } from '../password.ts';
import type { OidcRoleRule } from './oidc-settings.ts';

/** Where a rule puts an account: the organisation and role, checked to exist and to fit together. */
export interface Placement {
  readonly orgId: number;
  readonly roleId: number;
}

/** What single sign-on needs of the database: placements, identities and the accounts they log in as. */
export class OidcIdentities {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * The organisation and role a rule names, or undefined when either is missing or the role may not be
   * held there (roles are held only inside their owner's subtree: server/permits/grants.ts).
   */
  async placement(rule: OidcRoleRule): Promise<Placement | undefined> {
    const org =
      typeof rule.org === 'number'
        ? await this.#db.selectFrom('organisations').select('id').where('id', '=', rule.org).executeTakeFirst()
        : await this.#db.selectFrom('organisations').select('id').where('name', '=', rule.org).orderBy('id').executeTakeFirst();
    const role = await this.#db.selectFrom('roles').select(['id', 'org_id']).where(sql<boolean>`lower(name) = ${rule.role.toLowerCase()}`).executeTakeFirst();
    if (!org || !role) return undefined;
    return holdableIn({ orgId: role.org_id }, await orgPathOf(this.#db, org.id)) ? { orgId: org.id, roleId: role.id } : undefined;
  }

  /**
   * The account the subject logs in as, placed where the rule says: made on the first login (named after
   * the provider's user name, made unique), moved on later ones when the mapping changed. Returns the
   * account and whether its organisation or role changed (open consoles then reload their rights).
   */
  async accountFor(issuer: string, subject: string, wantedName: string, nickname: string, email: string, at: Placement, now: number): Promise<{ accountId: number; moved: boolean }> {
    const linked = await this.#db
      .selectFrom('oidc_identities as i')
      .innerJoin('accounts as a', 'a.id', 'i.account_id')
      .select(['a.id', 'a.org_id', 'a.role_id'])
      .where('i.issuer', '=', issuer)
      .where('i.subject', '=', subject)
      .executeTakeFirst();
    if (linked) {
      const moved = linked.org_id !== at.orgId || linked.role_id !== at.roleId;
      if (moved) await this.#db.updateTable('accounts').set({ org_id: at.orgId, role_id: at.roleId }).where('id', '=', linked.id).execute();
      await this.#db.updateTable('oidc_identities').set({ last_login: now }).where('issuer', '=', issuer).where('subject', '=', subject).execute();
      return { accountId: linked.id, moved };
    }
    // Nobody types this password: the account logs in through its provider only (an administrator may set one).
    const passwordHash = await hashSecret(randomBytes(32).toString('hex'));
    const account = await this.#freeName(wantedName);
    const accountId = await this.#db.transaction().execute(async (tx) => {
      const id = await insertAccount(tx, { orgId: at.orgId, roleId: at.roleId, account, nickname: nickname.slice(0, 64), email: email.slice(0, 128), phone: '', passwordHash, expireTime: null, now });
      await tx.insertInto('oidc_identities').values({ issuer, subject, account_id: id, created_at: now, last_login: now }).execute();
      return id;
    });
    return { accountId, moved: false };
  }

  /** A login name from the provider's user name that fits the login rule and is free: `alice.smith` -> `alicesmith`, then `alicesmith2`. */
  async #freeName(wanted: string): Promise<string> {
    const cleaned = wanted.replace(/[^A-Za-z0-9_]/g, '').replace(/^[^A-Za-z]+/, '');
    const base = (cleaned.length >= 4 ? cleaned : `sso${cleaned}user`).slice(0, 14);
    for (let n = 1; n < 1000; n++) {
      const name = n === 1 ? base : `${base.slice(0, 16 - String(n).length)}${n}`;
      if (!(await accountNameTaken(this.#db, name))) return name;
    }
    return `sso${randomBytes(6).toString('hex')}`.slice(0, 16);
  }
}

