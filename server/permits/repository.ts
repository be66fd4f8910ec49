import { sql } from 'kysely';
import type { Page } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import { noRightsNotifier, type RightsNotifier } from '../accounts/rights-bus.ts';
import { effectivePermissions, type CallerFacts, type RoleFacts } from './grants.ts';

export type { Page } from '../../protocol/index.ts';
import type { PagingBody } from '../../protocol/api/common.ts';
import type { AccountView, RoleView } from '../../protocol/api/permits.ts';

// The answers' shapes are the contract's (protocol/api/permits.ts).
export type { AccountView, RoleView };

/** A list call's page, its defaults filled (Ajv fills them from the contract's schema). */
export type PageQuery = Readonly<Required<PagingBody>>;

export interface RoleInput {
  readonly name: string;
  readonly summary: string;
  readonly permissions: readonly string[];
}

/** What the account rules need to know about a target account. */
export interface AccountFacts {
  readonly id: number;
  readonly orgId: number;
  readonly roleId: number;
  /** It is some organisation's own login account (managed through /org/*). */
  readonly isOrgLogin: boolean;
}

export interface AccountChanges {
  readonly nickname?: string | undefined;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly roleId?: number | undefined;
  /** scrypt hash of the new password, with the time it changed. */
  readonly password?: { readonly hash: string; readonly now: number } | undefined;
}

/** Roles and their permission lists. */
export class RoleRepository {
  readonly #db: Db;
  /** Told after every committed change to a role, so open consoles of its holders reload their rights. */
  readonly #rights: RightsNotifier;

  constructor(db: Db, rights: RightsNotifier = noRightsNotifier) {
    this.#db = db;
    this.#rights = rights;
  }

  /** A role with its effective permissions, or undefined. */
  async facts(id: number): Promise<RoleFacts | undefined> {
    const role = await this.#db.selectFrom('roles').select(['id', 'name', 'org_id']).where('id', '=', id).executeTakeFirst();
    if (!role) return undefined;
    const stored = await this.#permissionsOf([id]);
    return { id, name: role.name, orgId: role.org_id, permissions: effectivePermissions(role.name, stored.get(id) ?? []) };
  }

  /** One page of the roles the caller sees, newest first. */
  async page(facts: CallerFacts, q: PageQuery & { name?: string | undefined }): Promise<Page<RoleView>> {
    let base = visibleRoles(this.#db, facts);
    if (q.name) base = base.where(containsIgnoringCase('roles.name', q.name));
    const [{ total }, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      withCreator(base)
        .orderBy('roles.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute(),
    ]);
    return { total: Number(total), list: await this.#views(rows) };
  }

  /** Every role the caller sees, oldest first (a picker). */
  async all(facts: CallerFacts): Promise<RoleView[]> {
    return this.#views(await withCreator(visibleRoles(this.#db, facts)).orderBy('roles.id').execute());
  }

  /** True when another role has this name, ignoring case. */
  async nameTaken(name: string, exceptId?: number): Promise<boolean> {
    let q = this.#db.selectFrom('roles').select('id').where(sql<boolean>`lower(name) = ${name.toLowerCase()}`);
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async create(input: RoleInput, orgId: number, createdBy: number): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('roles')
        .values({ name: input.name, summary: input.summary, org_id: orgId, created_by: createdBy })
        .returning('id')
        .executeTakeFirstOrThrow();
      await replacePermissions(trx, id, input.permissions);
      return id;
    });
  }

  async update(id: number, input: RoleInput): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.updateTable('roles').set({ name: input.name, summary: input.summary }).where('id', '=', id).execute();
      await replacePermissions(trx, id, input.permissions);
    });
    await this.#rights.changed({ roles: [id] });
  }

  /** Number of accounts holding the role. */
  async holders(id: number): Promise<number> {
    const row = await this.#db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The organisations whose accounts hold the role. */
  async holderOrgs(id: number): Promise<number[]> {
    const rows = await this.#db.selectFrom('accounts').select('org_id').distinct().where('role_id', '=', id).execute();
    return rows.map((r) => r.org_id);
  }

  /** Deletes the role; its permission rows go with it (ON DELETE CASCADE). */
  async remove(id: number): Promise<void> {
    await this.#db.deleteFrom('roles').where('id', '=', id).execute();
    await this.#rights.changed({ roles: [id] });
  }

  async #views(rows: { id: number; name: string; summary: string; org_id: number | null; creator: string | null }[]): Promise<RoleView[]> {
    const stored = await this.#permissionsOf(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      summary: r.summary,
      createdBy: r.creator ?? '',
      orgId: r.org_id,
      permissionList: [...effectivePermissions(r.name, stored.get(r.id) ?? [])],
    }));
  }

  async #permissionsOf(roleIds: number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (roleIds.length === 0) return out;
    const rows = await this.#db.selectFrom('role_permissions').select(['role_id', 'permission']).where('role_id', 'in', roleIds).orderBy('permission').execute();
    for (const row of rows) out.set(row.role_id, [...(out.get(row.role_id) ?? []), row.permission]);
    return out;
  }
}

/** Roles the caller sees: those owned in its scope, and its own. */
function visibleRoles(db: Db, facts: CallerFacts) {
  const scope = [...facts.caller.scope];
  return db.selectFrom('roles').where((eb) =>
    eb.or([
      eb('roles.id', '=', facts.roleId),
      ...(scope.length > 0 ? [eb('roles.org_id', 'in', scope)] : []),
      ...(facts.atRoot ? [eb('roles.org_id', 'is', null)] : []),
    ]),
  );
}

function withCreator(base: ReturnType<typeof visibleRoles>) {
  return base
    .leftJoin('accounts', 'accounts.id', 'roles.created_by')
    .select(['roles.id', 'roles.name', 'roles.summary', 'roles.org_id', 'accounts.account as creator']);
}

async function replacePermissions(db: Db, roleId: number, permissions: readonly string[]): Promise<void> {
  await db.deleteFrom('role_permissions').where('role_id', '=', roleId).execute();
  if (permissions.length === 0) return;
  await db
    .insertInto('role_permissions')
    .values(permissions.map((permission) => ({ role_id: roleId, permission })))
    .execute();
}

/** The admin accounts of an organisation. */
export class AdminAccountRepository {
  readonly #db: Db;
  /** Told after every committed change to an account, so its open consoles reload their rights. */
  readonly #rights: RightsNotifier;

  constructor(db: Db, rights: RightsNotifier = noRightsNotifier) {
    this.#db = db;
    this.#rights = rights;
  }

  /** One page of the accounts of `orgId`, newest first. */
  async page(orgId: number, q: PageQuery & { account?: string | undefined }): Promise<Page<AccountView>> {
    let base = this.#db.selectFrom('accounts').innerJoin('roles', 'roles.id', 'accounts.role_id').where('accounts.org_id', '=', orgId);
    if (q.account) base = base.where(containsIgnoringCase('accounts.account', q.account));
    const [{ total }, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      base
        .select([
          'accounts.id',
          'accounts.account',
          'accounts.nickname',
          'accounts.email',
          'accounts.phone',
          'accounts.role_id',
          'roles.name as role',
          'accounts.org_id',
          'accounts.created_at',
        ])
        .orderBy('accounts.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute(),
    ]);
    return {
      total: Number(total),
      list: rows.map((r) => ({
        id: r.id,
        account: r.account,
        nickname: r.nickname,
        email: r.email,
        phone: r.phone,
        roleId: r.role_id,
        role: r.role,
        orgId: r.org_id,
        createdAt: r.created_at,
      })),
    };
  }

  async facts(id: number): Promise<AccountFacts | undefined> {
    const row = await this.#db
      .selectFrom('accounts')
      .leftJoin('organisations', 'organisations.login_account_id', 'accounts.id')
      .select(['accounts.id', 'accounts.org_id', 'accounts.role_id', 'organisations.id as owned_org'])
      .where('accounts.id', '=', id)
      .executeTakeFirst();
    return row && { id: row.id, orgId: row.org_id, roleId: row.role_id, isOrgLogin: row.owned_org !== null };
  }

  async update(id: number, changes: AccountChanges): Promise<void> {
    const set = {
      ...(changes.nickname !== undefined ? { nickname: changes.nickname } : {}),
      ...(changes.email !== undefined ? { email: changes.email } : {}),
      ...(changes.phone !== undefined ? { phone: changes.phone } : {}),
      ...(changes.roleId !== undefined ? { role_id: changes.roleId } : {}),
      ...(changes.password ? { password_hash: changes.password.hash, update_password_last_time: changes.password.now } : {}),
    };
    if (Object.keys(set).length === 0) return;
    await this.#db.updateTable('accounts').set(set).where('id', '=', id).execute();
    await this.#rights.changed({ accounts: [id] });
  }

  async remove(id: number): Promise<void> {
    await this.#db.deleteFrom('accounts').where('id', '=', id).execute();
    await this.#rights.changed({ accounts: [id] });
  }
}
