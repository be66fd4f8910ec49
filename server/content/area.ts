import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../protocol/index.ts';
import { CampaignRunner } from '../campaigns/runner.ts';
import { registerCampaignRoutes } from '../campaigns/routes.ts';
import type { Db } from '../db/database.ts';
import type { Gateway } from '../gateway/gateway.ts';
import { UploadService } from '../uploads/upload-service.ts';
import { registerCustomOrderRoutes } from './custom-orders.ts';
import { registerContentRoutes } from './routes.ts';

export interface ContentAreaDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly gateway: Gateway;
  /** Uploads go to <dataDir>/uploads, stored files to <dataDir>/content. */
  readonly dataDir: string;
}

/** The content area: file store and uploads, content routes, push campaigns (runner started, stopped on close). */
export function registerContentArea(app: FastifyInstance, deps: ContentAreaDeps): CampaignRunner {
  const uploads = new UploadService(deps.dataDir);
  uploads.register(app);
  registerContentRoutes(app, { db: deps.db, clock: deps.clock, uploads });
  registerCustomOrderRoutes(app, { db: deps.db, clock: deps.clock, uploads });
  const runner = new CampaignRunner({ db: deps.db, clock: deps.clock, gateway: deps.gateway, log: app.log });
  registerCampaignRoutes(app, { db: deps.db, clock: deps.clock, uploads, runner });
  // Unfinished uploads older than their expiry are dropped hourly.
  let sweep: unknown;
  let closed = false;
  const schedule = () => {
    if (!closed) sweep = deps.clock.setTimeout(() => void uploads.sweep().catch(() => 0).then(schedule), 3_600_000);
  };
  app.addHook('onReady', async () => {
    runner.start();
    schedule();
  });
  app.addHook('onClose', async () => {
    closed = true;
    await runner.stop();
    deps.clock.clearTimeout(sweep);
  });
  return runner;
}
