import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/timeline.ts';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import type { Recordings } from './recorder.ts';
import { addRecordingView, findRecording, recordingPolicy, listRecordings, recordingViews, setRecordingPolicy, viewOf } from './repository.ts';

export interface RecordingRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly recordings: Recordings | undefined;
}

/** Recorded sessions (issue 22): list, download (.cast for a shell, .mp4 for live view) and each organisation's policy. */
export async function recordingRoutes(app: FastifyInstance, deps: RecordingRouteDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/recording/list', { config: { permission: 'recording_list' }, schema: { body: c.RecordingListBody } }, async (req) => {
    const caller = callerOf(req);
    const { pageNum = 1, pageSize = 10, ...filter } = req.body;
    return ok(await listRecordings(deps.db, { ...filter, pageNum, pageSize, scope: caller.scopeCoversAll ? undefined : caller.scope }));
  });

  // One recording and who watched it (the replay page).
  api.post('/recording/detail', { config: { permission: 'recording_list' }, schema: { body: c.RecordingDetailBody } }, async (req) => {
    const caller = callerOf(req);
    const row = await findRecording(deps.db, req.body.id);
    if (!row || !caller.scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'common.permissionDenied');
    const detail: c.RecordingDetail = { recording: viewOf(row), views: await recordingViews(deps.db, row.id) };
    return ok(detail);
  });

  api.get('/recording/:id/download', { config: { permission: 'recording_list' }, schema: { params: c.RecordingIdPath, querystring: c.RecordingDownloadQuery } }, async (req, reply) => {
    const caller = callerOf(req);
    const row = await findRecording(deps.db, req.params.id);
    // Another organisation's recording and a missing one look alike.
    if (!row || !caller.scope.has(row.org_id) || !deps.recordings) throw new ApiError(ApiCode.NotFound, 'common.permissionDenied');
    // Each fetch is a view (who watched and when); a player's request for a later part of the file is the same view.
    const range = req.headers.range;
    if (range === undefined || /^bytes=0-/.test(range)) await addRecordingView(deps.db, row.id, caller.account, req.query.purpose ?? 'download', deps.clock.now());
    if (row.kind === 'live') {
      const { recordings } = deps;
      if (!fs.existsSync(recordings.fileOf(row.id, 'live'))) throw new ApiError(ApiCode.NotFound, 'common.permissionDenied');
      const mp4 = await recordings.mp4Of(row.id, row.ended_at !== null).catch((err: unknown) => {
        req.log.warn({ err, id: row.id }, 'exporting a live recording failed');
        throw new ApiError(ApiCode.NotFound, 'recording.nothingToExport');
      });
      const stream = fs.createReadStream(mp4.file);
      if (mp4.temporary) stream.once('close', () => void fs.promises.rm(mp4.file, { force: true }));
      return reply
        .type('video/mp4')
        .header('content-disposition', `attachment; filename="${row.sn}-${row.id}.mp4"`)
        .send(stream);
    }
    const file = deps.recordings.fileOf(row.id);
    if (!fs.existsSync(file)) throw new ApiError(ApiCode.NotFound, 'common.permissionDenied');
    return reply
      .type('application/x-asciicast')
      .header('content-disposition', `attachment; filename="${row.sn}-${row.id}.cast"`)
      .send(fs.createReadStream(file));
  });

  // An organisation's policy, read by whoever reads its recordings.
  api.post('/recording/policy-of', { config: { permission: 'recording_list' }, schema: { body: c.RecordingPolicyOfBody } }, async (req) => {
    const caller = callerOf(req);
    if (!caller.scope.has(req.body.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    const view: c.RecordingPolicyView = { orgId: req.body.orgId, policy: await recordingPolicy(deps.db, req.body.orgId) };
    return ok(view);
  });

  // The policy is an organisation setting: the organisation key, for organisations in the caller's scope.
  api.post('/recording/policy', { config: { permission: 'org_list' }, schema: { body: c.RecordingPolicyBody } }, async (req) => {
    const caller = callerOf(req);
    if (!caller.scope.has(req.body.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    await setRecordingPolicy(deps.db, req.body.orgId, req.body.policy);
    return ok(null);
  });
}
