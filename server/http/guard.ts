import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../accounts/caller.ts';
import { loadCaller } from '../accounts/caller.ts';
import type { SessionStore } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, Message } from './envelope.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no session. */
    public?: boolean;
    /** The permission key the caller must hold. Every non-public route names one or says `session`. */
    permission?: string;
  }
  interface FastifyRequest {
    caller: Caller | undefined;
  }
}

/** Header carrying the session token (platform-core section 7). */
export const TOKEN_HEADER = 'x-token';

/** The caller of a route that passed the guard. */
export function callerOf(req: FastifyRequest): Caller {
  if (!req.caller) throw new ApiError(ApiCode.LoginExpired, Message.PermissionDenied);
  return req.caller;
}

/**
 * The one permission check of the HTTP API: resolves the X-Token session and refuses the call when the
 * route's permission key is missing. A route must declare either `public` or a `permission`.
 */
export function registerGuard(app: FastifyInstance, db: Db, sessions: SessionStore): void {
  app.decorateRequest('caller', undefined);
  app.addHook('onRoute', (route) => {
    const config = route.config as { public?: boolean; permission?: string } | undefined;
    if (route.url.startsWith('/user') || route.method === 'HEAD') return;
    if (!config?.public && !config?.permission) {
      throw new Error(`Route ${route.method} ${route.url} declares neither public nor permission`);
    }
  });
  app.addHook('preHandler', async (req) => {
    const config = req.routeOptions.config;
    if (config.public || !config.permission) return;
    const token = req.headers[TOKEN_HEADER];
    const session = typeof token === 'string' && token ? await sessions.resolve(token) : undefined;
    const caller = session && (await loadCaller(db, session));
    if (!caller) throw new ApiError(ApiCode.LoginExpired, Message.PermissionDenied);
    if (config.permission !== 'session' && !caller.permissions.has(config.permission)) {
      throw new ApiError(ApiCode.Forbidden, Message.PermissionDenied);
    }
    req.caller = caller;
  });
}
