import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../protocol/index.ts';
import { LiveCallers } from '../accounts/live-callers.ts';
import type { SessionStore } from '../auth/sessions.ts';
import { addGroupJoiners } from '../groups/joiners.ts';
import { CampaignRunner } from '../campaigns/runner.ts';
import type { ApprovalService } from '../approvals/service.ts';
import { registerCampaignRoutes } from '../campaigns/routes.ts';
import type { Db } from '../db/database.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { UploadLimits } from '../uploads/upload-limits.ts';
import { UploadService } from '../uploads/upload-service.ts';
import { registerCustomOrderRoutes } from './custom-orders.ts';
import { registerContentRoutes } from './routes.ts';

export interface ContentAreaDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly gateway: Gateway;
  /** Long-lived requests (push-log stream, upload bodies) end with their session. */
  readonly sessions: SessionStore;
  /** Per-account upload caps, the upload creation rate and the sweep (defaults: upload-limits.ts). */
  readonly uploadLimits?: UploadLimits | undefined;
  /** Uploads go to <dataDir>/uploads, stored files to <dataDir>/content. */
  readonly dataDir: string;
  /** Four-eyes approval (issue 23): campaigns over the organisation's size wait for it. */
  readonly approvals?: ApprovalService;
}

/** The content area: file store and uploads, content routes, push campaigns (runner started, stopped on close). */
export function registerContentArea(app: FastifyInstance, deps: ContentAreaDeps): CampaignRunner {
  // Requests that outlive the guard's check are held to their session and current rights.
  const live = new LiveCallers({ db: deps.db, clock: deps.clock, sessions: deps.sessions, bus: deps.gateway.bus, rights: deps.gateway.rights, log: app.log });
  const uploads = new UploadService(deps.dataDir, deps.uploadLimits);
  uploads.register(app, live);
  registerContentRoutes(app, { db: deps.db, clock: deps.clock, uploads });
  registerCustomOrderRoutes(app, { db: deps.db, clock: deps.clock, uploads });
  const runner = new CampaignRunner({ db: deps.db, clock: deps.clock, gateway: deps.gateway, log: app.log, joiners: (now) => addGroupJoiners(deps.db, now) });
  registerCampaignRoutes(app, { db: deps.db, clock: deps.clock, uploads, runner, live, approvals: deps.approvals });
  // Unfinished uploads past their expiry and finished ones nobody took are dropped (hourly by default).
  let sweep: unknown;
  let closed = false;
  const schedule = () => {
    if (!closed) sweep = deps.clock.setTimeout(() => void uploads.sweep(deps.clock.now()).catch(() => 0).then(schedule), uploads.sweepEveryMs);
  };
  app.addHook('onReady', async () => {
    runner.start();
    schedule();
  });
  app.addHook('onClose', async () => {
    closed = true;
    live.close();
    await runner.stop();
    deps.clock.clearTimeout(sweep);
  });
  return runner;
}
