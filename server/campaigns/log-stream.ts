import type { ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/campaigns.ts';
import type { LiveCallers, LiveRequest } from '../accounts/live-callers.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import type { CampaignChange, TargetUpdate } from '../bus/subjects.ts';
import type { CampaignRunner } from './runner.ts';

/** The push log's key (devices-and-commerce section 2), which the live stream needs for as long as it is open. */
export const PUSH_LOG_PERMISSION = 'push_log_list';

/** GET /push-log/stream: live push changes for the caller's organisations. */
export function registerPushLogStream(app: FastifyInstance, deps: { readonly runner: CampaignRunner; readonly live: LiveCallers }): void {
  const { runner } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // Live per-device changes as newline-delimited JSON, for the caller's organisations only. The stream lives
  // as long as the caller may see it: it ends with the session (logout, kick-out, expiry, on any node) or
  // when the caller loses push_log_list or may no longer log in, and every event is checked against the
  // caller's rights of that moment (reloaded on each change: server/accounts/live-callers.ts). Open streams
  // are ended before the server closes: it would otherwise wait for every console to hang up.
  const streams = new Set<ServerResponse>();
  app.addHook('preClose', async () => {
    for (const res of streams) res.end();
  });
  api.get(
    '/push-log/stream',
    { config: { permission: PUSH_LOG_PERMISSION }, schema: { hide: true, querystring: c.PushStreamQuery } },
    async (req, reply) => {
      const only = req.query.campaignId ? Number(req.query.campaignId) : undefined;
      const res = reply.raw;
      const send = (event: object) => res.write(`${JSON.stringify(event)}\n`);
      const onTarget = (t: TargetUpdate) => {
        if (only !== undefined && t.campaignId !== only) return;
        live?.whenCurrent((caller) => caller.scope.has(t.orgId) && send({ type: 'target', ...t }));
      };
      const onCampaign = (c: CampaignChange) => {
        if (only !== undefined && c.id !== only) return;
        live?.whenCurrent((caller) => caller.scope.has(c.orgId) && send({ type: 'campaign', ...c }));
      };
      const stop = () => {
        streams.delete(res);
        runner.events.off('target', onTarget);
        runner.events.off('campaign', onCampaign);
      };
      // The listeners above are added only once it is open (below), so `live` is set before they run.
      const live: LiveRequest | undefined = await deps.live.open(callerOf(req).session, PUSH_LOG_PERMISSION, (reason) => {
        stop();
        // Said before the end, so a client can tell a lost session from a dropped connection.
        res.end(`${JSON.stringify({ type: 'closed', reason })}\n`);
      });
      if (!live) throw new ApiError(ApiCode.LoginExpired, 'common.permissionDenied');
      // The console hung up while its rights were loaded.
      if (req.raw.destroyed) return live.close();
      reply.hijack();
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
      send({ type: 'hello' });
      runner.events.on('target', onTarget);
      runner.events.on('campaign', onCampaign);
      streams.add(res);
      req.raw.on('close', () => {
        stop();
        live.close();
      });
    },
  );
}
