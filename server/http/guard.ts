import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../accounts/caller.ts';
import { loadCallerByToken } from '../accounts/caller.ts';
import type { SessionStore } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError } from './envelope.ts';
import { bearerToken } from '../api-tokens/bearer.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no session. */
    public?: boolean;
    /** The permission key the caller must hold. Every non-public route names one or says `session`. */
    permission?: string;
  }
  interface FastifyRequest {
    caller: Caller | undefined;
    /** A caller the guard refused for a missing key: the operation log still names the account. */
    refusedCaller: Caller | undefined;
  }
}

/** Response header naming the key a refused caller lacks (ours; the body keeps the spec's message). */
export const MISSING_PERMISSION_HEADER = 'x-missing-permission';

/** Header carrying the session token (platform-core section 7). */
export const TOKEN_HEADER = 'x-token';

/** The caller of a route that passed the guard. */
export function callerOf(req: FastifyRequest): Caller {
  if (!req.caller) throw new ApiError(ApiCode.LoginExpired, 'common.permissionDenied');
  return req.caller;
}

/** What one API route asks of its caller: a permission key, `session`, or nothing (public). */
export interface RoutePermission {
  readonly method: string;
  readonly url: string;
  /** A catalogued key, `session`, or undefined for a public route. */
  readonly permission: string | undefined;
}

const permissionTables = new WeakMap<FastifyInstance, RoutePermission[]>();

/** Every API route of `app` with what it asks of its caller, as the guard enforces it (the permission matrix). */
export function routePermissions(app: FastifyInstance): readonly RoutePermission[] {
  return permissionTables.get(app) ?? [];
}

/**
 * The one permission check of the HTTP API: resolves the X-Token session and refuses the call when the
 * route's permission key is missing. A route must declare either `public` or a `permission`. The check
 * runs when the request arrives, before its body is read or validated, so a caller without the key learns
 * nothing about what the route would accept.
 */
export function registerGuard(app: FastifyInstance, db: Db, sessions: SessionStore): void {
  const table: RoutePermission[] = [];
  permissionTables.set(app, table);
  app.decorateRequest('caller', undefined);
  app.decorateRequest('refusedCaller', undefined);
  app.addHook('onRoute', (route) => {
    const config = route.config as { public?: boolean; permission?: string } | undefined;
    if (route.url.startsWith('/user') || route.method === 'HEAD') return;
    if (!config?.public && !config?.permission) {
      throw new Error(`Route ${route.method} ${route.url} declares neither public nor permission`);
    }
    for (const method of [route.method].flat()) table.push({ method, url: route.url, permission: config.public ? undefined : config.permission });
  });
  app.addHook('onRequest', async (req, reply) => {
    const config = req.routeOptions.config;
    if (config.public || !config.permission) return;
    // X-Token (a login session) or Authorization: Bearer (an API token, or a session token too).
    const header = req.headers[TOKEN_HEADER];
    const token = typeof header === 'string' && header ? header : bearerToken(req.headers.authorization);
    const caller = typeof token === 'string' && token ? await loadCallerByToken(db, sessions, token) : undefined;
    if (!caller) throw new ApiError(ApiCode.LoginExpired, 'common.permissionDenied');
    if (config.permission !== 'session' && !caller.permissions.has(config.permission)) {
      // The spec's message is the same for every refusal; the header tells an API client which key it lacks.
      void reply.header(MISSING_PERMISSION_HEADER, config.permission);
      req.refusedCaller = caller;
      throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    }
    req.caller = caller;
  });
}
