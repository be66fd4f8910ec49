import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { addGroupJoiners } from '../groups/joiners.ts';
import { CampaignRunner, type RunnerOptions } from './runner.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs push campaigns from the database (dispatch, offline waits, retries, the live push log). */
    readonly campaignRunner: CampaignRunner;
  }
}

export interface CampaignsPluginOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** Where PushFile goes and progress comes back, and the bus other nodes' progress arrives on. */
  readonly gateway: RunnerOptions['gateway'];
}

/**
 * The campaign runner as infrastructure (issue 17 part 4): decorates the app with it (the campaign routes
 * start, pause and announce campaigns through it), starts it when the app is ready and stops it on close.
 * Devices joining a targeted group join its running campaigns (groups/joiners.ts).
 */
async function campaignsPlugin(app: FastifyInstance, opts: CampaignsPluginOptions): Promise<void> {
  const { db } = opts;
  const runner = new CampaignRunner({ db, clock: opts.clock, gateway: opts.gateway, log: app.log, joiners: (now) => addGroupJoiners(db, now) });
  app.decorate('campaignRunner', runner);
  app.addHook('onReady', async () => runner.start());
  app.addHook('onClose', async () => runner.stop());
}

export default fp(campaignsPlugin, { name: 'campaigns', fastify: '5.x' });
