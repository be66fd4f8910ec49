import { type Caller, pathToRoot } from '../accounts/caller.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import { callerFacts, canAssign, coversRole } from './grants.ts';
import type { RoleRepository } from './repository.ts';
import { formatMessage } from '../../protocol/index.ts';

/** Refusal when a role is unknown, not visible, or grants more than the caller holds. */
export const ROLE_NOT_ASSIGNABLE = formatMessage('en', 'permit.roleNotAssignable');

/** The path from `orgId` to the root, nearest first, in the current organisation tree. */
export async function orgPathOf(db: Db, orgId: number): Promise<number[]> {
  return pathToRoot((await currentOrgTree(db)).tree, orgId);
}

/**
 * Checks that the caller may give role `roleId` to an account of organisation `holderOrgId` (for a new
 * organisation's login account: the organisation it is created under), which must lie in the subtree of
 * the role's owner (grants.ts, holdableIn).
 */
export async function requireAssignableRole(db: Db, roles: RoleRepository, caller: Caller, roleId: number, holderOrgId: number): Promise<void> {
  const role = await roles.facts(roleId);
  if (!role || !canAssign(await callerFacts(db, caller), role, await orgPathOf(db, holderOrgId))) throw new ApiError(ApiCode.Forbidden, 'permit.roleNotAssignable');
}

/** Refusal when an existing account holds a permission the caller lacks. */
export const ACCOUNT_MORE_PRIVILEGED = formatMessage('en', 'permit.morePrivileged');

/**
 * Checks that the caller holds every key of each role in `roleIds`, the roles of accounts it is about to
 * edit or take over (an organisation's login account on a password reset, say).
 */
export async function requireCoversHolders(db: Db, roles: RoleRepository, caller: Caller, roleIds: Iterable<number>): Promise<void> {
  const facts = await callerFacts(db, caller);
  for (const roleId of new Set(roleIds)) {
    const role = await roles.facts(roleId);
    if (!role || !coversRole(facts, role)) throw new ApiError(ApiCode.Forbidden, 'permit.morePrivileged');
  }
}
