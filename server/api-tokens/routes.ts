import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Clock, isPermission, msg } from '../../protocol/index.ts';
import { type ApiTokenCreated, type ApiTokenView, CreateApiTokenBody, IntegrationPath } from '../../protocol/api/integrations.ts';
import type { Caller } from '../accounts/caller.ts';
import type { SessionStore } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import { apiTokenDigest, ApiTokenRepository, newApiToken } from './repository.ts';

export interface ApiTokenRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: SessionStore;
}

/** Token management needs a login session: a leaked token must not mint others that outlive its revocation. */
function loginCaller(caller: Caller): Caller {
  if (caller.session.apiToken) throw new ApiError(ApiCode.Forbidden, 'apiToken.notWithToken');
  return caller;
}

/**
 * API tokens (issue 23): each account makes its own, holding a subset of its own keys; the token is shown
 * once and stored as SHA-256. They are accepted as `Authorization: Bearer` wherever a session is
 * (server/http/guard.ts, the console socket), resolved by SessionStore.byDigest.
 */
export async function apiTokenRoutes(app: FastifyInstance, deps: ApiTokenRouteDeps): Promise<void> {
  const tokens = new ApiTokenRepository(deps.db);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/api-token/create',
    { config: { permission: 'session' }, schema: { body: CreateApiTokenBody } },
    async (req) => {
      const caller = loginCaller(callerOf(req));
      const name = cleanText(req.body.name, 'field.name', true);
      const keys = [...new Set(req.body.keys)];
      // Never more than the account holds: a key it lacks (or no key at all) is refused, not dropped.
      if (keys.some((k) => !isPermission(k) || !caller.permissions.has(k))) throw new ApiError(ApiCode.Forbidden, 'apiToken.keyNotHeld');
      const now = deps.clock.now();
      const expiresAt = req.body.expiresAt ?? null;
      if (expiresAt !== null && expiresAt <= now) throw new ApiError(ApiCode.BadRequest, 'apiToken.expiryPast');
      const token = newApiToken();
      const id = await tokens.create(caller.accountId, name, apiTokenDigest(token), keys, expiresAt, now);
      const created: ApiTokenCreated = { token, id, accountId: caller.accountId, orgId: caller.orgId };
      return ok(created);
    },
  );

  app.post('/api-token/list', { config: { permission: 'session' } }, async (req) => {
    const list: ApiTokenView[] = await tokens.list(callerOf(req).accountId);
    return ok(list);
  });

  api.delete('/api-token/:id', { config: { permission: 'session' }, schema: { params: IntegrationPath } }, async (req) => {
    const caller = callerOf(req);
    const tokenHash = await tokens.revoke(caller.accountId, idOf(req.params.id), deps.clock.now());
    if (tokenHash === undefined) throw new ApiError(ApiCode.NotFound, msg('apiToken.notFound'));
    // Sockets and streams opened with it close at once, on every node (the gateway relays the ending).
    deps.sessions.events.emit('ended', { tokenHash, accountId: caller.accountId });
    return ok(null);
  });
}
