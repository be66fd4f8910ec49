import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OidcCallbackQuery, SSO_ERROR_PARAM, type SsoConfig } from '../../../protocol/api/sso.ts';
import type { Clock } from '../../../protocol/index.ts';
import { loadCaller } from '../../accounts/caller.ts';
import type { RightsNotifier } from '../../accounts/rights-bus.ts';
import type { Db } from '../../db/database.ts';
import { ok } from '../../http/envelope.ts';
import { addressKey, perAddressLimit } from '../../http/rate-limit.ts';
import { accountFrozen, holdsAMenu, LOGIN_ATTEMPTS_PER_MINUTE } from '../routes.ts';
import type { SessionStore } from '../sessions.ts';
import { OidcLogin, type PendingLogin, SsoError } from './oidc-login.ts';
import type { OidcSettings } from './oidc-settings.ts';

/** The cookie that carries a started login to its callback; only the callback path receives it. */
const PENDING_COOKIE = 'dcc_oidc';
const CALLBACK_PATH = '/login/oidc/callback';
const PENDING_MAX_AGE_S = 600;
/** Where a signed-in browser lands, and where a refused one reads why. */
const CONSOLE_HOME = '/user/';
const LOGIN_PAGE = '/user/login';
/** Where an account whose organisation requires two-step verification sets it up. */
const TWO_STEP_SETUP = '/user/integrations/two-step';

export interface OidcDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: SessionStore;
  readonly rights: RightsNotifier;
  readonly settings: OidcSettings | undefined;
}

function pendingFrom(req: FastifyRequest): PendingLogin | undefined {
  const raw = /(?:^|;\s*)dcc_oidc=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  if (!raw) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const { state, nonce, verifier, redirectUrl } = value as Record<string, unknown>;
    return typeof state === 'string' && typeof nonce === 'string' && typeof verifier === 'string' && typeof redirectUrl === 'string' ? { state, nonce, verifier, redirectUrl } : undefined;
  } catch {
    return undefined;
  }
}

function refuse(reply: FastifyReply, key: string): FastifyReply {
  return reply.header('set-cookie', `${PENDING_COOKIE}=; Path=${CALLBACK_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`).redirect(`${LOGIN_PAGE}?${SSO_ERROR_PARAM}=${encodeURIComponent(key)}`, 303);
}

/**
 * Single sign-on (issue 23): GET /login/oidc/config tells the login page whether to offer it; /start sends
 * the browser to the provider; /callback turns the provider's answer into a console session (the same
 * `Admin-Token` cookie a password login sets) or back to the login page with the reason.
 */
export async function oidcRoutes(app: FastifyInstance, deps: OidcDeps): Promise<void> {
  const login = deps.settings ? new OidcLogin(deps.settings, deps.db, deps.clock) : undefined;

  app.get('/login/oidc/config', { config: { public: true } }, async () => ok<SsoConfig>({ enabled: login !== undefined, name: login?.name ?? '' }));

  app.get('/login/oidc/start', { config: { public: true, ...perAddressLimit(LOGIN_ATTEMPTS_PER_MINUTE, 60_000) } }, async (req, reply) => {
    if (!login) return refuse(reply, 'auth.ssoMisconfigured');
    try {
      const { url, pending } = await login.start(`${req.protocol}://${req.host}${CALLBACK_PATH}`);
      const cookie = Buffer.from(JSON.stringify(pending), 'utf8').toString('base64url');
      // SameSite=Lax: the provider's redirect back is a top-level GET, which Lax cookies accompany.
      return reply.header('set-cookie', `${PENDING_COOKIE}=${cookie}; Path=${CALLBACK_PATH}; Max-Age=${PENDING_MAX_AGE_S}; HttpOnly; SameSite=Lax`).redirect(url, 303);
    } catch (err) {
      req.log.error({ err }, 'single sign-on: the provider could not be reached');
      return refuse(reply, 'auth.ssoMisconfigured');
    }
  });

  app.get<{ Querystring: OidcCallbackQuery }>(
    CALLBACK_PATH,
    { config: { public: true, ...perAddressLimit(LOGIN_ATTEMPTS_PER_MINUTE, 60_000) }, schema: { querystring: OidcCallbackQuery } },
    async (req, reply) => {
      if (!login) return refuse(reply, 'auth.ssoMisconfigured');
      let accountId: number;
      try {
        const placed = await login.finish(new URL(req.url, `${req.protocol}://${req.host}`), pendingFrom(req));
        accountId = placed.accountId;
        if (placed.moved) await deps.rights.changed({ accounts: [accountId] });
      } catch (err) {
        const key = err instanceof SsoError ? err.key : 'auth.ssoFailed';
        req.log.warn({ err, address: addressKey(req.ip) }, 'single sign-on refused');
        return refuse(reply, key);
      }
      if (await accountFrozen(deps.db, accountId)) return refuse(reply, 'auth.orgFrozen');
      const token = await deps.sessions.open(accountId);
      const session = await deps.sessions.resolve(token);
      const caller = session && (await loadCaller(deps.db, session));
      // An organisation that requires two-step verification holds its accounts' keys back until they set it
      // up (server/totp): as after a password login, such an account is let in to do that first.
      if (!caller || (!caller.totpSetupRequired && !holdsAMenu(caller.permissions))) {
        if (caller) await deps.sessions.end(caller.session);
        return refuse(reply, 'common.noPermission');
      }
      // The cookie the console reads its session from (src/state/session.ts), as after a password login.
      return reply
        .header('set-cookie', [`${PENDING_COOKIE}=; Path=${CALLBACK_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`, `Admin-Token=${token}; Path=/; SameSite=Lax`])
        .redirect(caller.totpSetupRequired ? TWO_STEP_SETUP : CONSOLE_HOME, 303);
    },
  );
}
