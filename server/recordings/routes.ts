import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/timeline.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import type { ShellRecordings } from './recorder.ts';
import { findRecording, listRecordings, setRecordingPolicy } from './repository.ts';

export interface RecordingRouteDeps {
  readonly db: Db;
  readonly recordings: ShellRecordings | undefined;
}

/** Recorded sessions (issue 22): list, download (.cast) and each organisation's policy. */
export function registerRecordingRoutes(app: FastifyInstance, deps: RecordingRouteDeps): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/recording/list', { config: { permission: 'recording_list' }, schema: { body: c.RecordingListBody } }, async (req) => {
    const caller = callerOf(req);
    const { pageNum = 1, pageSize = 10, ...filter } = req.body;
    return ok(await listRecordings(deps.db, { ...filter, pageNum, pageSize, scope: caller.scopeCoversAll ? undefined : caller.scope }));
  });

  api.get('/recording/:id/download', { config: { permission: 'recording_list' }, schema: { params: c.RecordingIdPath } }, async (req, reply) => {
    const caller = callerOf(req);
    const row = await findRecording(deps.db, req.params.id);
    // Another organisation's recording and a missing one look alike.
    if (!row || !caller.scope.has(row.org_id) || !deps.recordings) throw new ApiError(ApiCode.NotFound, 'common.permissionDenied');
    const file = deps.recordings.fileOf(row.id);
    if (!fs.existsSync(file)) throw new ApiError(ApiCode.NotFound, 'common.permissionDenied');
    return reply
      .type('application/x-asciicast')
      .header('content-disposition', `attachment; filename="${row.sn}-${row.id}.cast"`)
      .send(fs.createReadStream(file));
  });

  // The policy is an organisation setting: the organisation key, for organisations in the caller's scope.
  api.post('/recording/policy', { config: { permission: 'org_list' }, schema: { body: c.RecordingPolicyBody } }, async (req) => {
    const caller = callerOf(req);
    if (!caller.scope.has(req.body.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    await setRecordingPolicy(deps.db, req.body.orgId, req.body.policy);
    return ok(null);
  });
}
