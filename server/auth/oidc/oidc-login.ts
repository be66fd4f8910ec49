import * as client from 'openid-client';
import type { Clock } from '../../../protocol/index.ts';
import type { Db } from '../../db/database.ts';
import { OidcIdentities } from './identities.ts';
import type { OidcRoleRule, OidcSettings } from './oidc-settings.ts';

/** What the browser keeps between the start and the callback (an HttpOnly cookie): nothing else remembers it. */
export interface PendingLogin {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly redirectUrl: string;
}

/** Why a single sign-on did not end in a session; each is a message key the login page shows. */
export type SsoRefusal = 'auth.ssoExpired' | 'auth.ssoNoRole' | 'auth.ssoMisconfigured' | 'auth.ssoFailed';

export class SsoError extends Error {
  readonly key: SsoRefusal;
  constructor(key: SsoRefusal, detail: string) {
    super(detail);
    this.key = key;
  }
}

/** The groups an ID token claims, whether the provider sends a list or one name. */
function groupsOf(claims: Readonly<Record<string, unknown>>, claim: string): string[] {
  const value = claims[claim];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return typeof value === 'string' ? [value] : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Authorization code flow with PKCE (S256), state and nonce, by openid-client: the provider is found by
 * discovery once, every ID token is checked (signature, issuer, audience, expiry, nonce) by the library.
 */
export class OidcLogin {
  readonly #settings: OidcSettings;
  readonly #clock: Clock;
  readonly #identities: OidcIdentities;
  #config: Promise<client.Configuration> | undefined;

  constructor(settings: OidcSettings, db: Db, clock: Clock) {
    this.#settings = settings;
    this.#clock = clock;
    this.#identities = new OidcIdentities(db);
  }

  get name(): string {
    return this.#settings.name;
  }

  #discover(): Promise<client.Configuration> {
    // Plain http only for a provider on this machine (tests, a local provider); anything else must be https.
    const insecure = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(this.#settings.issuer);
    this.#config ??= client
      .discovery(new URL(this.#settings.issuer), this.#settings.clientId, this.#settings.clientSecret, undefined, insecure ? { execute: [client.allowInsecureRequests] } : undefined)
      .catch((err: unknown) => {
        // A provider that was down at the first try is asked again next time.
        this.#config = undefined;
        throw err;
      });
    return this.#config;
  }

  /** The provider's authorization address for a new attempt, and what the browser must keep until the callback. */
  async start(defaultRedirect: string): Promise<{ url: string; pending: PendingLogin }> {
    const config = await this.#discover();
    const pending: PendingLogin = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), redirectUrl: this.#settings.redirectUrl ?? defaultRedirect };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: pending.redirectUrl,
      scope: 'openid profile email',
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /**
   * Exchanges the callback's code, checks the ID token and places its subject: returns the account to open
   * a session for, and whether its organisation or role changed.
   */
  async finish(callbackUrl: URL, pending: PendingLogin | undefined): Promise<{ accountId: number; moved: boolean }> {
    if (!pending) throw new SsoError('auth.ssoExpired', 'no pending login in this browser');
    const error = callbackUrl.searchParams.get('error');
    if (error) throw new SsoError('auth.ssoFailed', callbackUrl.searchParams.get('error_description') || error);
    const config = await this.#discover();
    // The checked URL is the registered redirect address with the provider's parameters.
    const current = new URL(pending.redirectUrl);
    current.search = callbackUrl.search;
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
    } catch (err) {
      throw new SsoError('auth.ssoFailed', err instanceof Error ? err.message : String(err));
    }
    const claims = tokens.claims();
    if (!claims) throw new SsoError('auth.ssoFailed', 'the provider sent no ID token');
    const groups = groupsOf(claims, this.#settings.groupClaim);
    const rule = this.#settings.roleMap.find((r: OidcRoleRule) => groups.includes(r.group));
    if (!rule) throw new SsoError('auth.ssoNoRole', `no rule for groups [${groups.join(', ')}]`);
    const placement = await this.#identities.placement(rule);
    if (!placement) throw new SsoError('auth.ssoMisconfigured', `rule for group '${rule.group}': organisation '${rule.org}' or role '${rule.role}' is missing, or the role may not be held there`);
    const email = text(claims.email);
    const wanted = text(claims.preferred_username) || email.split('@')[0] || text(claims.name) || claims.sub;
    return this.#identities.accountFor(claims.iss, claims.sub, wanted, text(claims.name) || wanted, email, placement, this.#clock.now());
  }
}
