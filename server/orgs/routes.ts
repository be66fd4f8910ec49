import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/orgs.ts';
import { type Clock, englishOf, type FieldLabelKey } from '../../protocol/index.ts';
import { newAccountName } from '../accounts/account-name.ts';
import type { Caller } from '../accounts/caller.ts';
import { orgSubtree } from '../accounts/org-scope.ts';
import { accountOrg, checkAccountPassword, setAccountPassword } from '../accounts/repository.ts';
import { hashSecret } from '../auth/password.ts';
import type { SessionStore } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, HASHED_PASSWORD, idOf } from '../http/validation.ts';
import { orgPathOf, requireAssignableRole, requireCoversHolders } from '../permits/assignable.ts';
import { callerFacts, canAssign } from '../permits/grants.ts';
import type { RoleRepository } from '../permits/repository.ts';
import type { OrgDetail, OrgFields, OrgRepository } from './repository.ts';
import { hotAction } from '../http/rate-limit.ts';

/**
 * The spec gives one key for the organisation screen (platform-core section 2); every /org/* call uses it
 * and the organisation scope does the rest (docs/DECISIONS.md).
 */
export const ORG_PERMISSION = 'org_list';

/** Refusals of the organisation calls. The first is the spec's; the others are ours. */
export const OrgMessage = englishOf({
  LimitReached: 'org.limitReached',
  OwnOrganisation: 'org.ownOrganisation',
  HasChildren: 'org.hasChildren',
  HasDevices: 'org.hasDevices',
  HasAccounts: 'org.hasAccounts',
  NoLoginAccount: 'org.noLoginAccount',
  Gone: 'org.gone',
});

export interface OrgRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: SessionStore;
  readonly orgs: OrgRepository;
  readonly roles: RoleRepository;
  readonly orgCreateLimit: number | undefined;
}

/** Organisation management (platform-core section 7, /org/*). */
export async function orgRoutes(app: FastifyInstance, deps: OrgRouteDeps): Promise<void> {
  const config = { permission: ORG_PERMISSION };
  const hot = { ...config, ...hotAction };
  const { orgs } = deps;
  // Requests typed from the contract's schemas (protocol/api/orgs.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/org/list', { config, schema: { body: c.OrgListBody } }, async (req) => {
    const body = req.body;
    const caller = callerOf(req);
    return ok(await orgs.list({ scope: caller.scope, scopeCoversAll: caller.scopeCoversAll, pageNum: body.pageNum ?? 1, pageSize: body.pageSize ?? 10, name: body.name?.trim(), orderBy: body.orderBy, order: body.order, treeVersion: caller.treeVersion }));
  });

  // The roles the caller may give a new organisation's login account (the add dialog's role field). Served
  // under org_list, as /permit/getAllRole needs role_list, which an organisation manager may not hold.
  app.get('/org/loginRoles', { config }, async (req) => {
    const facts = await callerFacts(deps.db, callerOf(req));
    const roles = await deps.roles.all(facts);
    // For a new organisation under the caller's own (the add dialog's default parent).
    const path = await orgPathOf(deps.db, facts.caller.orgId);
    return ok(roles.filter((r) => canAssign(facts, { ...r, permissions: new Set(r.permissionList) }, path)));
  });

  api.post('/org/add', { config: hot, schema: { body: c.AddOrgBody } }, async (req) => ok(await addOrg(deps, callerOf(req), req.body)));

  api.post('/org/update', { config: hot, schema: { body: c.UpdateOrgBody } }, async (req) => ok(await updateOrg(deps, callerOf(req), req.body)));

  api.delete('/org/del', { config: hot, schema: { body: c.OrgIdBody } }, async (req) => {
    await deleteOrg(deps, callerOf(req), req.body.id);
    return ok(null);
  });

  api.post('/org/freeze', { config: hot, schema: { body: c.FreezeOrgBody } }, async (req) => {
    requireBelowCaller(callerOf(req), req.body.id);
    await orgs.setFreezeState(req.body.id, req.body.freezeState);
    return ok(null);
  });

  api.get('/org/getOrg/:orgId', { config, schema: { params: c.OrgPath } }, async (req) => {
    const id = idOf(req.params.orgId);
    requireInScope(callerOf(req), id);
    return ok(await existing(orgs.get(id)));
  });

  api.post('/org/restpassword', { config: hot, schema: { body: c.OrgPasswordBody } }, async (req) => {
    await resetOrgPassword(deps, callerOf(req), req.body);
    return ok(null);
  });

  api.get('/org/report/:id', { config, schema: { params: c.OrgReportPath } }, async (req) => {
    const id = idOf(req.params.id);
    requireInScope(callerOf(req), id);
    return ok(await orgs.deviceTotals(await orgSubtree(deps.db, id)));
  });

  app.get('/org/allOnline', { config }, async (req) => {
    const caller = callerOf(req);
    return ok((await orgs.deviceTotals(caller.scope, caller.scopeCoversAll)).online);
  });

  api.get('/org/kitoutUser/:accountId', { config: hot, schema: { params: c.AccountPath } }, async (req) => {
    const accountId = idOf(req.params.accountId);
    const orgId = await accountOrg(deps.db, accountId);
    if (orgId === undefined) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    requireInScope(callerOf(req), orgId);
    return ok({ sessions: await deps.sessions.endAllFor(accountId) });
  });

  // The password travels in the path (the spec's call); only its SHA-256 does, never the typed text.
  api.get(
    '/org/authorizationPassword/:password',
    { config, schema: { params: c.AuthorizationPasswordPath } },
    async (req) => {
      const hashed = req.params.password;
      return ok(new RegExp(HASHED_PASSWORD).test(hashed) && (await checkAccountPassword(deps.db, callerOf(req).accountId, hashed)));
    },
  );
}

/** Refuses an organisation outside the caller's subtree, saying no more than the spec's message. */
function requireInScope(caller: Caller, orgId: number): void {
  if (!caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
}

/** Freeze, delete and password reset act on organisations below the caller's own only. */
function requireBelowCaller(caller: Caller, orgId: number): void {
  requireInScope(caller, orgId);
  if (orgId === caller.orgId) throw new ApiError(ApiCode.Forbidden, 'org.ownOrganisation');
}

async function existing(detail: Promise<OrgDetail | undefined>): Promise<OrgDetail> {
  const found = await detail;
  // In scope yet gone: deleted by another request since the caller's scope was loaded.
  if (!found) throw new ApiError(ApiCode.NotFound, 'org.gone');
  return found;
}

const optionalText = (value: string | undefined, label: FieldLabelKey) => (value === undefined ? undefined : cleanText(value, label, false));

/** The descriptive fields of a body, trimmed and checked. */
function cleanFields(body: c.UpdateOrgBody | c.AddOrgBody): OrgFields {
  return {
    name: body.name === undefined ? undefined : cleanText(body.name, 'field.name', true),
    alias: optionalText(body.alias, 'field.alias'),
    email: body.email?.trim(),
    phone: body.phone?.trim(),
    remark: optionalText(body.remark, 'field.remark'),
    contactPerson: optionalText(body.contactPerson, 'field.contactPerson'),
    publicKey: body.publicKey?.trim(),
    expireTime: body.expireTime,
    customerType: body.customerType,
  };
}

async function addOrg(deps: OrgRouteDeps, caller: Caller, body: c.AddOrgBody): Promise<OrgDetail> {
  const parentId = body.parentId ?? caller.orgId;
  requireInScope(caller, parentId);
  const fields = cleanFields(body);
  const account = newAccountName(body.account);
  // The login account's role is always chosen (the schema requires it), never inherited from the creator,
  // and only among the roles the creator may grant: no more keys than the creator holds.
  await requireAssignableRole(deps.db, deps.roles, caller, body.roleId, parentId);
  const result = await deps.orgs.create({
    ...fields,
    name: cleanText(body.name, 'field.name', true),
    parentId,
    account,
    passwordHash: await hashSecret(body.password),
    roleId: body.roleId,
    now: deps.clock.now(),
    limit: deps.orgCreateLimit,
  });
  if ('refused' in result) {
    throw new ApiError(ApiCode.BadRequest, result.refused === 'limit' ? 'org.limitReached' : 'account.taken');
  }
  return existing(deps.orgs.get(result.id));
}

async function updateOrg(deps: OrgRouteDeps, caller: Caller, body: c.UpdateOrgBody): Promise<OrgDetail> {
  requireInScope(caller, body.id);
  // An organisation may keep its own contact details, but its expiry and role are set from above.
  if (body.id === caller.orgId && (body.expireTime !== undefined || body.roleId !== undefined || body.customerType !== undefined)) {
    throw new ApiError(ApiCode.Forbidden, 'org.ownOrganisation');
  }
  // The expiry is every account's of the organisation and the role is its login account's: changing
  // either edits accounts, which needs every key they hold (a lesser manager cannot re-role a more
  // privileged login down to a role it may then take over with a password reset).
  if (body.expireTime !== undefined) await requireCoversHolders(deps.db, deps.roles, caller, await deps.orgs.rolesHeldIn(body.id));
  if (body.roleId !== undefined) {
    const loginRole = await deps.orgs.loginRoleOf(body.id);
    if (loginRole === undefined) throw new ApiError(ApiCode.NotFound, 'org.noLoginAccount');
    await requireCoversHolders(deps.db, deps.roles, caller, [loginRole]);
    await requireAssignableRole(deps.db, deps.roles, caller, body.roleId, body.id);
  }
  await deps.orgs.update(body.id, cleanFields(body), body.roleId);
  return existing(deps.orgs.get(body.id));
}

async function deleteOrg(deps: OrgRouteDeps, caller: Caller, id: number): Promise<void> {
  requireBelowCaller(caller, id);
  const dependents = await deps.orgs.dependents(id);
  if (dependents.children > 0) throw new ApiError(ApiCode.BadRequest, 'org.hasChildren');
  if (dependents.devices > 0) throw new ApiError(ApiCode.BadRequest, 'org.hasDevices');
  if (dependents.accounts > 0) throw new ApiError(ApiCode.BadRequest, 'org.hasAccounts');
  const loginId = await deps.orgs.loginAccountOf(id);
  // Ended through the store, not by the cascade, so the gateway closes the account's sockets.
  if (loginId !== undefined) await deps.sessions.endAllFor(loginId);
  await deps.orgs.remove(id, (await deps.orgs.parentOf(id)) ?? null);
}

async function resetOrgPassword(deps: OrgRouteDeps, caller: Caller, body: c.OrgPasswordBody): Promise<void> {
  requireBelowCaller(caller, body.id);
  const loginId = await deps.orgs.loginAccountOf(body.id);
  const loginRole = await deps.orgs.loginRoleOf(body.id);
  if (loginId === undefined || loginRole === undefined) throw new ApiError(ApiCode.NotFound, 'org.noLoginAccount');
  // A reset hands the login to the caller: refused when the login holds a key the caller does not.
  await requireCoversHolders(deps.db, deps.roles, caller, [loginRole]);
  await setAccountPassword(deps.db, loginId, body.password, deps.clock.now());
  // A reset is how a parent takes an organisation's login back: whoever held the old password is out.
  await deps.sessions.endAllFor(loginId);
}
