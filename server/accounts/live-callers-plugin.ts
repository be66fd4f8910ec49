import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../protocol/index.ts';
import type { SessionStore } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import { LiveCallers, type LiveCallersDeps } from './live-callers.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests that outlive the guard's check (upload bodies, the push-log stream), held to their session and rights. */
    readonly liveCallers: LiveCallers;
  }
}

export interface LiveCallersPluginOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: SessionStore;
  /** Sessions ended on other nodes come over its bus; rights changes from its rights bus. */
  readonly gateway: { readonly bus: LiveCallersDeps['bus']; readonly rights: LiveCallersDeps['rights'] };
}

/** Live callers as infrastructure (issue 17 part 4): decorates the app, and ends every live request on close. */
async function liveCallersPlugin(app: FastifyInstance, opts: LiveCallersPluginOptions): Promise<void> {
  const live = new LiveCallers({ db: opts.db, clock: opts.clock, sessions: opts.sessions, bus: opts.gateway.bus, rights: opts.gateway.rights, log: app.log });
  app.decorate('liveCallers', live);
  app.addHook('onClose', async () => live.close());
}

export default fp(liveCallersPlugin, { name: 'live-callers', fastify: '5.x' });
