import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import { callerFacts, canAssign } from './grants.ts';
import type { RoleRepository } from './repository.ts';

/** Refusal when a role is unknown, not visible, or grants more than the caller holds. */
export const ROLE_NOT_ASSIGNABLE = 'You cannot assign this role';

/** Checks that the caller may give role `roleId` to an account or organisation. */
export async function requireAssignableRole(db: Db, roles: RoleRepository, caller: Caller, roleId: number): Promise<void> {
  const role = await roles.facts(roleId);
  if (!role || !canAssign(await callerFacts(db, caller), role)) throw new ApiError(ApiCode.Forbidden, ROLE_NOT_ASSIGNABLE);
}
