import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { Webhooks } from './dispatcher.ts';
import { registerWebhookSink } from './emit.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Webhook hooks and deliveries, and this process's dispatcher that sends them (issue 23). */
    readonly webhooks: Webhooks;
  }
}

export interface WebhooksPluginOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** Device presence changes become device.online and device.offline events. */
  readonly gateway: { onPresence(listener: (sn: string, orgId: number, online: boolean, time: number) => void): void };
}

/**
 * Webhooks as infrastructure (issue 17 part 4): events (device presence, and whatever a repository emits
 * through emitWebhook) become persisted deliveries, sent by the dispatcher this plugin starts, decorates
 * the app with (`app.webhooks`, for the webhook routes) and stops when the app closes.
 */
async function webhooksPlugin(app: FastifyInstance, opts: WebhooksPluginOptions): Promise<void> {
  const webhooks = new Webhooks({ db: opts.db, clock: opts.clock, log: app.log });
  app.decorate('webhooks', webhooks);
  opts.gateway.onPresence((sn, orgId, online, time) => void webhooks.emit(orgId, online ? 'device.online' : 'device.offline', { sn, time }));
  const unregister = registerWebhookSink(opts.db, { emit: (orgId, event, data) => void webhooks.emit(orgId, event, data) });
  webhooks.start();
  app.addHook('onClose', async () => {
    unregister();
    await webhooks.stop();
  });
}

export default fp(webhooksPlugin, { name: 'webhooks', fastify: '5.x' });
