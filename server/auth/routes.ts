import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AuthorizationPasswordBody } from '../../protocol/api/orgs.ts';
import { type AccountDetail, type CaptchaView, type LoginAnswer, LoginBody } from '../../protocol/api/auth.ts';
import { formatMessage, msg, permissionCatalogue } from '../../protocol/index.ts';
import { ACCOUNT_PATTERN } from '../accounts/account-name.ts';
import { loadCaller } from '../accounts/caller.ts';
import { accountOrg, checkAccountPassword, loginCredentials } from '../accounts/repository.ts';
import { isFrozen } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { addressKey, perAddressLimit } from '../http/rate-limit.ts';
import { ORG_PERMISSION } from '../orgs/routes.ts';
import type { CaptchaStore } from './captcha.ts';
import type { LoginGuard } from './login-guard.ts';
import { verifySecret } from './password.ts';
import type { SessionStore } from './sessions.ts';
import type { Clock } from '../../protocol/index.ts';
import { loginSecondFactor } from '../totp/routes.ts';

/** Ours: the spec shows freeze and unfreeze actions but no message for a frozen login. */
export const ORG_FROZEN = formatMessage('en', 'auth.orgFrozen');

/** Whether the account's organisation, or one above it, is frozen (false for an unknown account). */
export async function accountFrozen(db: Db, accountId: number): Promise<boolean> {
  const orgId = await accountOrg(db, accountId);
  return orgId !== undefined && (await isFrozen(db, orgId));
}

/**
 * Per client address (IPv6: per /64) and minute: login attempts over all accounts, and verification-code
 * images. Far above a person or an office behind one address, far below a guessing script (docs/DECISIONS.md).
 */
export const LOGIN_ATTEMPTS_PER_MINUTE = 30;
export const CAPTCHA_IMAGES_PER_MINUTE = 30;

/** The console sends the lowercase hex SHA-256 of the typed password. */
const HASHED_PASSWORD = /^[0-9a-f]{64}$/;

// Menu keys: a login holding none of these is refused (platform-core section 6).
const menuKeys = new Set(permissionCatalogue.filter((e) => e.parent === null).map((e) => e.key));

/** A login must hold at least one menu key to be let in (password and single sign-on alike). */
export function holdsAMenu(permissions: Iterable<string>): boolean {
  for (const key of permissions) if (menuKeys.has(key)) return true;
  return false;
}

export interface AuthDeps {
  readonly db: Db;
  readonly loginGuard: LoginGuard;
  readonly sessions: SessionStore;
  readonly captcha: CaptchaStore;
  readonly captchaEnabled: boolean;
  readonly clock: Clock;
}

/** Captcha, login, account detail and logout. */
export async function authRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  const { db, sessions, captcha } = deps;
  // Requests typed from the contract's schemas (protocol/api) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // Not shown by the spec: the verification-code image. Its id goes back as `id` in the login payload.
  // Limited per address, so that one client cannot draw images without end (each also holds a challenge).
  app.get('/login/captcha', { config: { public: true, ...perAddressLimit(CAPTCHA_IMAGES_PER_MINUTE, 60_000) } }, async (req) => {
    if (!deps.captchaEnabled) return ok<CaptchaView>({ enabled: false, id: '', image: '' });
    const challenge = captcha.issue(addressKey(req.ip));
    if (!challenge) throw new ApiError(ApiCode.TooFrequent, 'common.tooFrequent');
    return ok<CaptchaView>({ enabled: true, id: challenge.id, image: `data:image/gif;base64,${challenge.gif.toString('base64')}` });
  });

  api.post(
    '/login/userLogin',
    {
      // Per address, whatever the account: a budget per address and account let a script that changes the
      // account name on every try go unlimited. Repeated guesses at one account also meet the LoginGuard.
      config: { public: true, ...perAddressLimit(LOGIN_ATTEMPTS_PER_MINUTE, 60_000) },
      schema: { body: LoginBody },
    },
    async (req) => {
      const username = (req.body.username ?? '').trim();
      const password = req.body.password ?? '';
      if (!username) throw new ApiError(ApiCode.BadRequest, 'common.accountEmpty');
      if (!password) throw new ApiError(ApiCode.BadRequest, 'common.passwordEmpty');
      if (deps.captchaEnabled && !captcha.check(req.body.id ?? '', req.body.authCode ?? '')) {
        throw new ApiError(ApiCode.LoginFailed, 'common.verificationCodeError');
      }
      const locked = deps.loginGuard.lockedMinutes(username);
      if (locked > 0) throw new ApiError(ApiCode.LoginFailed, msg('auth.locked', { minutes: locked }));
      const account = ACCOUNT_PATTERN.test(username) ? await loginCredentials(db, username) : undefined;
      // Hash even for unknown accounts so response time does not reveal which accounts exist.
      const valid = HASHED_PASSWORD.test(password) && (await verifySecret(password, account?.password_hash ?? DUMMY_HASH));
      if (!account || !valid) {
        deps.loginGuard.failed(username);
        throw new ApiError(ApiCode.LoginFailed, 'auth.wrongPassword');
      }
      deps.loginGuard.succeeded(username);
      if (await accountFrozen(db, account.id)) throw new ApiError(ApiCode.LoginFailed, 'auth.orgFrozen');
      // The second factor, after the password: a wrong code counts as a wrong password against the lock-out.
      const second = await loginSecondFactor(db, account.id, req.body.totpCode, deps.clock.now());
      if (second === 'missing') throw new ApiError(ApiCode.LoginFailed, 'auth.totpRequired');
      if (second === 'wrong') {
        deps.loginGuard.failed(username);
        throw new ApiError(ApiCode.LoginFailed, 'auth.totpWrong');
      }
      const token = await sessions.open(account.id);
      const session = await sessions.resolve(token);
      const caller = session && (await loadCaller(db, session));
      if (!caller) throw new ApiError(ApiCode.Internal, 'common.error');
      const permissionList = [...caller.permissions];
      // An account its organisation requires a second factor of logs in to set one up, holding no key until then.
      if (!caller.totpSetupRequired && !permissionList.some((key) => menuKeys.has(key))) {
        await sessions.end(caller.session);
        throw new ApiError(ApiCode.Forbidden, 'common.noPermission');
      }
      const answer: LoginAnswer = {
        token,
        list: [{ permissionList }],
        roles: [caller.role],
        org: { id: caller.orgId, name: caller.orgName },
        id: caller.accountId,
        avatar: '',
        description: caller.nickname,
        signalingServer: '',
        streamServer: '',
        ...(caller.totpSetupRequired ? { totpSetupRequired: true } : {}),
      };
      return ok(answer);
    },
  );

  // The spec's GET /org/authorizationPassword/{password} (server/orgs/routes.ts) puts the password's hash in
  // the path, where request logs and proxies keep it (our own log redacts it: server/http/request-log.ts).
  // The console asks this POST twin instead: same permission, same answer, the hash in the body.
  api.post(
    '/org/authorizationPassword',
    {
      config: { permission: ORG_PERMISSION },
      schema: { body: AuthorizationPasswordBody },
    },
    async (req) => {
      const hashed = req.body.password;
      return ok(HASHED_PASSWORD.test(hashed) && (await checkAccountPassword(db, callerOf(req).accountId, hashed)));
    },
  );

  app.get('/home/getAccountDetail', { config: { permission: 'session' } }, async (req) => {
    const c = callerOf(req);
    return ok<AccountDetail>({
      id: c.accountId,
      account: c.account,
      nickname: c.nickname,
      roles: [c.role],
      org: { id: c.orgId, name: c.orgName },
      permissionList: [...c.permissions],
      updatePasswordLastTime: c.updatePasswordLastTime,
      expireTime: c.expireTime,
      languageType: c.language,
      customerType: c.customerType,
    });
  });

  app.get('/home/logout', { config: { permission: 'session' } }, async (req) => {
    await sessions.end(callerOf(req).session);
    return ok(null);
  });
}

// A valid scrypt hash of a random value, verified against when the account does not exist.
const DUMMY_HASH =
  'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$7oYwP7Yd0d9s8m3e3y9m3A6hZxYt0mJm3J0m3e3y9m0=';
