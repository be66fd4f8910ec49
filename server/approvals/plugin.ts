import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { Gateway } from '../gateway/gateway.ts';
import { ApprovalService, decidedEvent } from './service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Four-eyes approval (issue 23): the command paths and campaigns ask it before wipes and big actions. */
    readonly approvals: ApprovalService;
  }
}

export interface ApprovalsPluginOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** Console sockets ask the service before a command; requesters hear live that their request was decided. */
  readonly gateway: Pick<Gateway, 'timeline' | 'approvals' | 'approvalDecided'>;
}

/**
 * Approvals as infrastructure (issue 17 part 4): builds the service, hands it to the gateway's console
 * sockets, decorates the app with it (the approval, device operation and campaign routes ask it and register
 * their executors), starts its expiry sweep when the app is ready and stops it on close.
 */
async function approvalsPlugin(app: FastifyInstance, opts: ApprovalsPluginOptions): Promise<void> {
  const { gateway } = opts;
  const approvals = new ApprovalService({ db: opts.db, clock: opts.clock, timeline: gateway.timeline, log: app.log });
  gateway.approvals = approvals;
  // The requester hears live, in every console it has open, that its request was decided or expired.
  approvals.onDecided((row) => gateway.approvalDecided(row.requester_id, decidedEvent(row)));
  app.decorate('approvals', approvals);
  app.addHook('onReady', async () => approvals.start());
  app.addHook('onClose', async () => approvals.stop());
}

export default fp(approvalsPlugin, { name: 'approvals', fastify: '5.x' });
