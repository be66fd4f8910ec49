import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { UsageTracker } from '../reports/usage-tracker.ts';
import { TelemetryIngest, type TelemetrySettings } from './ingest.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Device telemetry ingestion (messages 3, 4, 6, 8): latest states, samples, abnormal records. */
    readonly telemetry: TelemetryIngest;
    /** Platform usage: every authenticated request's session time, for the usage report. */
    readonly usage: UsageTracker;
  }
}

export interface TelemetryPluginOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly settings: TelemetrySettings;
  /** Where device messages arrive (the gateway), and its metrics when it has them. */
  readonly gateway: Parameters<TelemetryIngest['register']>[0];
}

/**
 * Telemetry and usage as infrastructure (issue 17 part 4): decorates the app with `telemetry` and `usage`
 * for the report routes, takes the device messages from the gateway, records every authenticated
 * request's usage (a hook on the whole app: fastify-plugin lifts it out of this plugin's context), and
 * flushes both when the app closes.
 */
async function telemetryPlugin(app: FastifyInstance, opts: TelemetryPluginOptions): Promise<void> {
  const { db, clock } = opts;
  const telemetry = new TelemetryIngest({ db, clock, settings: opts.settings, log: app.log });
  telemetry.register(opts.gateway);
  const usage = new UsageTracker(db, clock);
  app.decorate('telemetry', telemetry);
  app.decorate('usage', usage);
  app.addHook('onResponse', async (req) => {
    const c = req.caller;
    if (c) usage.record({ tokenHash: c.session.tokenHash, accountId: c.accountId, account: c.account, orgId: c.orgId, time: clock.now() });
  });
  app.addHook('onClose', async () => {
    await telemetry.stop();
    await usage.flush().catch(() => undefined);
  });
}

export default fp(telemetryPlugin, { name: 'telemetry', fastify: '5.x' });
