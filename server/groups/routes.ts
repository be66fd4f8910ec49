import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/groups.ts';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { DeviceRepository } from '../devices/repository.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { pageWindow } from '../http/paging.ts';
import { cleanText, idOf } from '../http/validation.ts';
import { GroupRepository, groupFilter, groupScope, parseGroupQuery } from './repository.ts';

/** Reading groups and their members: whoever sees the device list. */
export const GROUP_READ_PERMISSION = 'device_list';
/** Creating, changing and deleting groups (docs/DECISIONS.md, "Dynamic groups"). */
export const GROUP_MANAGE_PERMISSION = 'device_group';

export interface GroupRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/**
 * Dynamic groups (issue 23): a named device query of an organisation, listed and used by the accounts of
 * that organisation and those above it. Members are evaluated each time, within the caller's organisations.
 */
export async function deviceGroupRoutes(app: FastifyInstance, deps: GroupRouteDeps): Promise<void> {
  const { db, clock } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const groups = new GroupRepository(db);
  const devices = new DeviceRepository(db);

  // The subtree named by a query must be one the caller reaches, so a query cannot probe other organisations.
  const checkQuery = (query: c.GroupQuery, scope: ReadonlySet<number>) => {
    if (query.orgSubtree !== undefined && !scope.has(query.orgSubtree)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    if (query.orgId !== undefined && !scope.has(query.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  };

  api.post('/device-group/create', { config: { permission: GROUP_MANAGE_PERMISSION }, schema: { body: c.GroupCreateBody } }, async (req) => {
    const caller = callerOf(req);
    checkQuery(req.body.query, caller.scope);
    const name = cleanText(req.body.name, 'field.name', true);
    const row = await groups.create(caller.orgId, caller.accountId, name, req.body.query, clock.now());
    return ok(await groups.view({ ...row, org_name: caller.orgName }, caller.scope));
  });

  api.post('/device-group/update', { config: { permission: GROUP_MANAGE_PERMISSION }, schema: { body: c.GroupUpdateBody } }, async (req) => {
    const caller = callerOf(req);
    const group = await groups.inScope(req.body.id, caller.scope);
    checkQuery(req.body.query, caller.scope);
    const name = cleanText(req.body.name, 'field.name', true);
    const row = await groups.update(group, name, req.body.query, clock.now());
    return ok(await groups.view(row, caller.scope));
  });

  api.delete('/device-group/:id', { config: { permission: GROUP_MANAGE_PERMISSION }, schema: { params: c.GroupIdPath } }, async (req) => {
    const caller = callerOf(req);
    const group = await groups.inScope(idOf(req.params.id), caller.scope);
    await groups.delete(group.id);
    return ok(null);
  });

  api.post('/device-group/list', { config: { permission: GROUP_READ_PERMISSION }, schema: { body: c.GroupListBody } }, async (req) => {
    const caller = callerOf(req);
    const { limit, offset } = pageWindow(req.body);
    const { total, rows } = await groups.list(caller.scope, req.body.name?.trim() ?? '', limit, offset);
    return ok({ total, list: await Promise.all(rows.map((r) => groups.view(r, caller.scope))) });
  });

  api.get('/device-group/:id', { config: { permission: GROUP_READ_PERMISSION }, schema: { params: c.GroupIdPath } }, async (req) => {
    const caller = callerOf(req);
    return ok(await groups.view(await groups.inScope(idOf(req.params.id), caller.scope), caller.scope));
  });

  // The devices a group holds now, or a query's before it is saved (the console's preview).
  api.post('/device-group/members', { config: { permission: GROUP_READ_PERMISSION }, schema: { body: c.GroupMembersBody } }, async (req) => {
    const caller = callerOf(req);
    const { id, query, pageNum = 1, pageSize = 10 } = req.body;
    if (id !== undefined && query !== undefined) throw new ApiError(ApiCode.BadRequest, 'group.idOrQuery');
    let filter;
    if (id !== undefined) {
      const group = await groups.inScope(id, caller.scope);
      filter = await groupFilter(db, parseGroupQuery(group.query_json), await groupScope(db, group, caller.scope));
    } else if (query !== undefined) {
      checkQuery(query, caller.scope);
      filter = await groupFilter(db, query, caller.scope);
    } else {
      throw new ApiError(ApiCode.BadRequest, 'group.idOrQuery');
    }
    const page: c.GroupMembers = await devices.list({ ...filter, pageNum, pageSize });
    return ok(page);
  });
}
