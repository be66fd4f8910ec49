import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { TimelineBody } from '../../protocol/api/timeline.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { deviceOrgOf, listTimeline } from './repository.ts';

/**
 * The key that reads a device's timeline: the device view's key for the device's details (the timeline is
 * a tab of that view; docs/DECISIONS.md, "Device timeline").
 */
export const TIMELINE_PERMISSION = 'device_base_info';

export interface TimelineRouteDeps {
  readonly db: Db;
}

/** POST /device/timeline (issue 22): one device's commands, newest first, within the caller's organisations. */
export async function timelineRoutes(app: FastifyInstance, deps: TimelineRouteDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post('/device/timeline', { config: { permission: TIMELINE_PERMISSION }, schema: { body: TimelineBody } }, async (req) => {
    const caller = callerOf(req);
    const { sn, from, to, pageNum = 1, pageSize = 10 } = req.body;
    // A device outside the caller's organisations and an unknown one get the same refusal.
    const orgId = await deviceOrgOf(deps.db, sn);
    if (orgId === undefined || !caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    return ok(await listTimeline(deps.db, { sn, from, to, pageNum, pageSize, scope: caller.scopeCoversAll ? undefined : caller.scope }));
  });
}
