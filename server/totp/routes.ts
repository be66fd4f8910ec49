import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { TotpCodeBody, TotpPolicyBody } from '../../protocol/api/auth.ts';
import type { Clock } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { RightsNotifier } from '../accounts/rights-bus.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { TotpRepository } from './repository.ts';

/** The second factor is the account holder's own: set up, confirmed and removed from a login session. */
function loginCaller(caller: Caller): Caller {
  if (caller.session.apiToken) throw new ApiError(ApiCode.Forbidden, 'apiToken.notWithToken');
  return caller;
}

/**
 * TOTP second factor (issue 23): each account sets it up for itself; an organisation may require it of its
 * accounts (`/org/totp-policy`, with the organisation key), and an account of such an organisation holds no
 * key until it has set it up (server/accounts/caller.ts).
 */
export async function totpRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock; rights: RightsNotifier }): Promise<void> {
  const totp = new TotpRepository(deps.db);
  // Requests typed from the contract's schemas (protocol/api/auth.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/totp/status', { config: { permission: 'session' } }, async (req) => {
    const caller = callerOf(req);
    return ok({ ...(await totp.status(caller.accountId)), required: await totp.policy(caller.orgId) });
  });

  app.post('/totp/setup', { config: { permission: 'session' } }, async (req) => {
    const caller = loginCaller(callerOf(req));
    const made = await totp.setup(caller.accountId, caller.account, deps.clock.now());
    if (!made) throw new ApiError(ApiCode.BadRequest, 'totp.alreadyEnabled');
    return ok(made);
  });

  api.post('/totp/enable', { config: { permission: 'session' }, schema: { body: TotpCodeBody } }, async (req) => {
    const caller = loginCaller(callerOf(req));
    const codes = await totp.enable(caller.accountId, req.body.code.trim(), deps.clock.now());
    if (!codes) throw new ApiError(ApiCode.BadRequest, 'totp.wrongCode');
    // An account its organisation held back until now gets its keys: open sockets reload them.
    await deps.rights.changed({ accounts: [caller.accountId] });
    return ok({ recoveryCodes: codes });
  });

  api.post('/totp/disable', { config: { permission: 'session' }, schema: { body: TotpCodeBody } }, async (req) => {
    const caller = loginCaller(callerOf(req));
    if (await totp.policy(caller.orgId)) throw new ApiError(ApiCode.Forbidden, 'totp.requiredByPolicy');
    if (!(await totp.disable(caller.accountId, req.body.code, deps.clock.now()))) throw new ApiError(ApiCode.BadRequest, 'totp.wrongCode');
    return ok(null);
  });

  api.post('/org/totp-policy', { config: { permission: 'org_list' }, schema: { body: TotpPolicyBody } }, async (req) => {
    const caller = callerOf(req);
    if (!caller.scope.has(req.body.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    await totp.setPolicy(req.body.orgId, req.body.required);
    await deps.rights.changed({ orgs: [req.body.orgId] });
    return ok(null);
  });
}

/**
 * The second-factor step of a login, after the password: 'ok' when the account has no factor or `code`
 * is valid, 'missing' when it has one and no code was sent, 'wrong' otherwise.
 */
export async function loginSecondFactor(db: Db, accountId: number, code: string | undefined, now: number): Promise<'ok' | 'missing' | 'wrong'> {
  const totp = new TotpRepository(db);
  if (!(await totp.enabled(accountId))) return 'ok';
  if (!code?.trim()) return 'missing';
  return (await totp.verify(accountId, code, now)) ? 'ok' : 'wrong';
}
