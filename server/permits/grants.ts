import { ADMIN_ROLE, isPermission, permissionCatalogue } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';

/*
 * Who may hand out or change which role. Roles are platform-wide (their names are unique, platform-core
 * section 5) but owned by an organisation, so that a customer organisation can neither see nor change the
 * roles of the organisations above it, and nobody can grant more than they hold.
 */

/** A role as the policy needs it. */
export interface RoleFacts {
  readonly id: number;
  readonly name: string;
  /** Owning organisation; null for platform roles, which belong to the root organisation. */
  readonly orgId: number | null;
  readonly permissions: ReadonlySet<string>;
}

/** What the policy needs to know about the caller beyond {@link Caller}. */
export interface CallerFacts {
  readonly caller: Caller;
  readonly roleId: number;
  /** The caller's organisation is a root, so platform roles are its own. */
  readonly atRoot: boolean;
}

/** Loads the facts about the caller that role decisions need. */
export async function callerFacts(db: Db, caller: Caller): Promise<CallerFacts> {
  const row = await db
    .selectFrom('accounts')
    .innerJoin('organisations', 'organisations.id', 'accounts.org_id')
    .select(['accounts.role_id', 'organisations.parent_id'])
    .where('accounts.id', '=', caller.accountId)
    .executeTakeFirstOrThrow();
  return { caller, roleId: row.role_id, atRoot: row.parent_id === null };
}

/** The permissions a role confers: the admin role holds the whole catalogue (platform-core section 6). */
export function effectivePermissions(roleName: string, stored: readonly string[]): ReadonlySet<string> {
  return new Set(roleName === ADMIN_ROLE ? permissionCatalogue.map((e) => e.key) : stored.filter(isPermission));
}

/** The role is owned by the caller's organisation or one below it. */
export function ownsRole(facts: CallerFacts, role: Pick<RoleFacts, 'orgId'>): boolean {
  return role.orgId === null ? facts.atRoot : facts.caller.scope.has(role.orgId);
}

/** The caller may see the role: it owns it, or holds it. */
export function seesRole(facts: CallerFacts, role: Pick<RoleFacts, 'id' | 'orgId'>): boolean {
  return role.id === facts.roleId || ownsRole(facts, role);
}

/** Every permission in the list is one the caller holds; the admin role only its holders can give. */
export function canGrant(facts: CallerFacts, roleName: string, permissions: Iterable<string>): boolean {
  if (roleName === ADMIN_ROLE) return facts.caller.role === ADMIN_ROLE;
  for (const p of permissions) if (!facts.caller.permissions.has(p)) return false;
  return true;
}

/**
 * The role may be held by an account of the organisation whose path to the root is `holderOrgPath`
 * (nearest first; for an organisation about to be created, its parent's path): only within the subtree
 * of the role's owner. Whoever owns a role may change it, so an account holding it elsewhere, above the
 * owner say, would have its keys set by an organisation that does not reach it.
 */
export function holdableIn(role: Pick<RoleFacts, 'orgId'>, holderOrgPath: readonly number[]): boolean {
  return role.orgId === null || holderOrgPath.includes(role.orgId);
}

/** The caller may assign the role to an account of the organisation at `holderOrgPath` (see {@link holdableIn}). */
export function canAssign(facts: CallerFacts, role: RoleFacts, holderOrgPath: readonly number[]): boolean {
  return seesRole(facts, role) && canGrant(facts, role.name, role.permissions) && holdableIn(role, holderOrgPath);
}

/**
 * The caller may change or delete the role: it owns it, the role grants nothing the caller lacks, and every
 * organisation whose accounts hold it (`holderOrgs`) is in the caller's scope. Assignments keep holders in
 * the owner's subtree ({@link holdableIn}); the last check is for data written before that rule.
 */
export function canManage(facts: CallerFacts, role: RoleFacts, holderOrgs: Iterable<number>): boolean {
  if (role.name === ADMIN_ROLE || !ownsRole(facts, role) || !canGrant(facts, role.name, role.permissions)) return false;
  for (const org of holderOrgs) if (!facts.caller.scope.has(org)) return false;
  return true;
}

/**
 * The caller holds every key the role confers (the admin role: only its own holders). Editing, resetting
 * the password of, or re-roling an account that holds the role needs this, so that nobody takes over an
 * account more privileged than themselves.
 */
export function coversRole(facts: CallerFacts, role: Pick<RoleFacts, 'name' | 'permissions'>): boolean {
  return canGrant(facts, role.name, role.permissions);
}
