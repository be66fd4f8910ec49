import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdPath } from '../../protocol/api/common.ts';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ROLE, type Clock, englishOf, isPermission, msg, permissionCatalogue } from '../../protocol/index.ts';
import { newAccountName } from '../accounts/account-name.ts';
import type { Caller } from '../accounts/caller.ts';
import { accountNameTaken, checkAccountPassword, insertAccount } from '../accounts/repository.ts';
import { hashSecret } from '../auth/password.ts';
import type { SessionStore } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import { orgPathOf, requireAssignableRole } from './assignable.ts';
import { callerFacts, canAssign, canGrant, canManage, seesRole } from './grants.ts';
import type { AccountFacts, AdminAccountRepository, RoleInput, RoleRepository } from './repository.ts';
import * as s from '../../protocol/api/permits.ts';
import { hotAction } from '../http/rate-limit.ts';

/** Permission keys of the authority screens (platform-core section 2). */
export const ROLE_PERMISSION = 'role_list';
export const ADMIN_PERMISSION = 'admin_list';

/** Refusals of the role and account calls. The first is the spec's; the others are ours. */
export const PermitMessage = englishOf({
  RoleNameTaken: 'permit.roleNameTaken',
  NotHeld: 'permit.notHeld',
  AdminRoleFixed: 'permit.adminRoleFixed',
  RoleInUse: 'permit.roleInUse',
  NotYourRole: 'permit.notYourRole',
  DeleteSelf: 'permit.deleteSelf',
  ChangeSelf: 'permit.changeSelf',
  OrgLoginAccount: 'permit.orgLoginAccount',
  MorePrivileged: 'permit.morePrivileged',
});

export interface PermitRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: SessionStore;
  readonly roles: RoleRepository;
  readonly accounts: AdminAccountRepository;
}

/** Roles, admin accounts and the own-password change (platform-core section 7, /permit/*). */
export async function permitRoutes(app: FastifyInstance, deps: PermitRouteDeps): Promise<void> {
  registerRoleRoutes(app, deps);
  registerAccountRoutes(app, deps);
}

function registerRoleRoutes(app: FastifyInstance, deps: PermitRouteDeps): void {
  const config = { permission: ROLE_PERMISSION };
  const hot = { ...config, ...hotAction };
  const { db, roles } = deps;
  // Bodies typed from the contract's schemas (protocol/api/permits.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // Every catalogued permission, for building role forms; labels follow the caller's language.
  app.get('/permit/getAllPermits', { config: { permission: 'session' } }, async (req) => {
    const zh = callerOf(req).language === 1;
    return ok(permissionCatalogue.map((e) => ({ id: e.key, parentId: e.parent, name: e.key, label: zh ? e.zh : e.en })));
  });

  api.post('/permit/getRoleList', { config, schema: { body: s.RoleListBody } }, async (req) => {
    const body = req.body;
    const facts = await callerFacts(db, callerOf(req));
    return ok(await roles.page(facts, { pageNum: body.pageNum ?? 1, pageSize: body.pageSize ?? 10, name: body.name?.trim() }));
  });

  // A picker: `grantable` says whether the caller may give the role to an account or organisation.
  app.get('/permit/getAllRole', { config }, async (req) => {
    const facts = await callerFacts(db, callerOf(req));
    const list = await roles.all(facts);
    // Grantable to the accounts of the caller's own organisation, which is where /permit/addAccount puts them.
    const path = await orgPathOf(db, facts.caller.orgId);
    return ok(list.map((r) => ({ ...r, grantable: canAssign(facts, { ...r, permissions: new Set(r.permissionList) }, path) })));
  });

  api.post('/permit/addRole', { config: hot, schema: { body: s.AddRoleBody } }, async (req) => {
    const caller = callerOf(req);
    const input = await roleInput(deps, caller, req.body);
    return ok({ id: await uniqueName(() => roles.create(input, caller.orgId, caller.accountId)) });
  });

  api.post('/permit/updateRole', { config: hot, schema: { body: s.UpdateRoleBody } }, async (req) => {
    const caller = callerOf(req);
    await requireManageableRole(deps, caller, req.body.id);
    const input = await roleInput(deps, caller, req.body, req.body.id);
    await uniqueName(() => roles.update(req.body.id, input));
    return ok(null);
  });

  api.delete('/permit/delRole/:id', { config: hot, schema: { params: IdPath } }, async (req) => {
    const id = idOf(req.params.id);
    await requireManageableRole(deps, callerOf(req), id);
    if ((await roles.holders(id)) > 0) throw new ApiError(ApiCode.BadRequest, 'permit.roleInUse');
    await roles.remove(id);
    return ok(null);
  });

  api.get('/permit/getPermitsByRole/:id', { config, schema: { params: IdPath } }, async (req) => {
    const role = await roles.facts(idOf(req.params.id));
    if (!role || !seesRole(await callerFacts(db, callerOf(req)), role)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    return ok([...role.permissions]);
  });
}

/** A role body, checked: a clean unique name and catalogued permissions the caller holds. */
async function roleInput(deps: PermitRouteDeps, caller: Caller, body: s.AddRoleBody, exceptId?: number): Promise<RoleInput> {
  const name = cleanText(body.name, 'field.roleName', true);
  const summary = cleanText(body.summary, 'field.summary', false);
  const permissions = [...new Set(body.permissionList)];
  const unknown = permissions.find((p) => !isPermission(p));
  if (unknown !== undefined) throw new ApiError(ApiCode.BadRequest, msg('permit.unknownPermission', { name: unknown }));
  if (!canGrant(await callerFacts(deps.db, caller), name, permissions)) throw new ApiError(ApiCode.Forbidden, 'permit.notHeld');
  if (await deps.roles.nameTaken(name, exceptId)) throw new ApiError(ApiCode.BadRequest, 'permit.roleNameTaken');
  return { name, summary, permissions };
}

/** Runs a role write; a concurrent request that took the name first loses to the unique index. */
async function uniqueName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'permit.roleNameTaken');
    throw err;
  }
}

async function requireManageableRole(deps: PermitRouteDeps, caller: Caller, id: number): Promise<void> {
  const role = await deps.roles.facts(id);
  const facts = await callerFacts(deps.db, caller);
  if (!role || !seesRole(facts, role)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  if (role.name === ADMIN_ROLE) throw new ApiError(ApiCode.Forbidden, 'permit.adminRoleFixed');
  if (!canManage(facts, role, await deps.roles.holderOrgs(id))) throw new ApiError(ApiCode.Forbidden, 'permit.notYourRole');
}

function registerAccountRoutes(app: FastifyInstance, deps: PermitRouteDeps): void {
  const config = { permission: ADMIN_PERMISSION };
  const hot = { ...config, ...hotAction };
  const { accounts } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/permit/getAdminList', { config, schema: { body: s.AdminListBody } }, async (req) => {
    const body = req.body;
    return ok(await accounts.page(callerOf(req).orgId, { pageNum: body.pageNum ?? 1, pageSize: body.pageSize ?? 10, account: body.account?.trim() }));
  });

  api.post('/permit/addAccount', { config: hot, schema: { body: s.AddAccountBody } }, async (req) => ok({ id: await addAccount(deps, callerOf(req), req.body) }));

  api.post('/permit/updateAccount', { config: hot, schema: { body: s.UpdateAccountBody } }, async (req) => {
    await updateAccount(deps, callerOf(req), req.body);
    return ok(null);
  });

  api.delete('/permit/delAccount/:id', { config: hot, schema: { params: IdPath } }, async (req) => {
    const caller = callerOf(req);
    const id = idOf(req.params.id);
    if (id === caller.accountId) throw new ApiError(ApiCode.BadRequest, 'permit.deleteSelf');
    await requireManageableAccount(deps, caller, id);
    // Through the store, not the cascade, so the gateway closes the account's sockets.
    await deps.sessions.endAllFor(id);
    await accounts.remove(id);
    return ok(null);
  });

  api.post('/permit/update-self-password', { config: { permission: 'session', ...hotAction }, schema: { body: s.SelfPasswordBody } }, async (req) => {
    const caller = callerOf(req);
    if (req.body.id !== caller.accountId) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    if (req.body.oldPassword !== undefined && !(await checkAccountPassword(deps.db, caller.accountId, req.body.oldPassword))) {
      throw new ApiError(ApiCode.BadRequest, 'permit.oldPasswordWrong');
    }
    await accounts.update(caller.accountId, { password: { hash: await hashSecret(req.body.password), now: deps.clock.now() } });
    // Other sessions may be whoever learnt the old password; this one stays logged in.
    await deps.sessions.endAllFor(caller.accountId, caller.session.tokenHash);
    return ok(null);
  });
}

async function addAccount(deps: PermitRouteDeps, caller: Caller, body: s.AddAccountBody): Promise<number> {
  const account = newAccountName(body.account);
  const nickname = cleanText(body.nickname, 'field.nickname', false);
  await requireAssignableRole(deps.db, deps.roles, caller, body.roleId, caller.orgId);
  if (await accountNameTaken(deps.db, account)) throw new ApiError(ApiCode.BadRequest, 'account.taken');
  const now = deps.clock.now();
  const input = {
    orgId: caller.orgId,
    roleId: body.roleId,
    account,
    nickname,
    email: body.email?.trim() ?? '',
    phone: body.phone?.trim() ?? '',
    passwordHash: await hashSecret(body.password),
    expireTime: caller.expireTime,
    now,
  };
  try {
    return await insertAccount(deps.db, input);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'account.taken');
    throw err;
  }
}

async function updateAccount(deps: PermitRouteDeps, caller: Caller, body: s.UpdateAccountBody): Promise<void> {
  const self = body.id === caller.accountId;
  if (self && (body.password !== undefined || body.roleId !== undefined)) throw new ApiError(ApiCode.Forbidden, 'permit.changeSelf');
  if (!self) await requireManageableAccount(deps, caller, body.id);
  else await requireAccountInOrg(deps, caller, body.id);
  // Accounts managed here are of the caller's own organisation (requireAccountInOrg above).
  if (body.roleId !== undefined) await requireAssignableRole(deps.db, deps.roles, caller, body.roleId, caller.orgId);
  const password = body.password === undefined ? undefined : { hash: await hashSecret(body.password), now: deps.clock.now() };
  await deps.accounts.update(body.id, {
    nickname: body.nickname === undefined ? undefined : cleanText(body.nickname, 'field.nickname', false),
    email: body.email?.trim(),
    phone: body.phone?.trim(),
    roleId: body.roleId,
    password,
  });
  // A password set by an administrator ends the sessions opened with the old one.
  if (password) await deps.sessions.endAllFor(body.id);
}

/** Admin accounts are managed within the caller's own organisation. */
async function requireAccountInOrg(deps: PermitRouteDeps, caller: Caller, id: number): Promise<AccountFacts> {
  const target = await deps.accounts.facts(id);
  if (!target || target.orgId !== caller.orgId) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  return target;
}

/** Another account of the caller's organisation, neither its login account nor more privileged than the caller. */
async function requireManageableAccount(deps: PermitRouteDeps, caller: Caller, id: number): Promise<void> {
  const target = await requireAccountInOrg(deps, caller, id);
  if (target.isOrgLogin) throw new ApiError(ApiCode.Forbidden, 'permit.orgLoginAccount');
  const role = await deps.roles.facts(target.roleId);
  const facts = await callerFacts(deps.db, caller);
  if (!role || !canGrant(facts, role.name, role.permissions)) throw new ApiError(ApiCode.Forbidden, 'permit.morePrivileged');
}
