import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/** A person known to the test provider: the claims its ID token carries. */
export interface ProviderUser {
  readonly preferred_username: string;
  readonly name: string;
  readonly email: string;
  readonly groups: readonly string[];
}

export interface TestOidcProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registers the relying party's callback (known once its server has a port) and opens for logins. */
  register(redirectUri: string): void;
  /** Who "signs in" at the provider's login prompt, as a person would by typing their password there. */
  signInAs(subject: string, user: ProviderUser): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider: discovery, keys, authorization code with PKCE, signed ID
 * tokens) on 127.0.0.1. Its login and consent prompts are answered by the test's chosen user instead
 * of an HTML form: everything else is the provider's own protocol.
 */
export async function startOidcProvider(): Promise<TestOidcProvider> {
  const users = new Map<string, ProviderUser>();
  let current: string | undefined;
  let provider: Provider | undefined;
  const server = http.createServer((req, res) => {
    if (!provider) {
      res.statusCode = 503;
      res.end('provider not registered yet');
      return;
    }
    const p = provider;
    if (req.url?.startsWith('/interaction/')) {
      void (async () => {
        const details = await p.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          if (!current) throw new Error('nobody signs in: call signInAs first');
          await p.interactionFinished(req, res, { login: { accountId: current } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new p.Grant({ accountId: String(details.session?.accountId), clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await p.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      })().catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    p.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'device-control-center';
  const clientSecret = 'test-client-secret-0123456789abcdef';
  return {
    issuer,
    clientId,
    clientSecret,
    register(redirectUri) {
      const configuration: Configuration = {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
        claims: { openid: ['sub'], profile: ['preferred_username', 'name', 'groups'], email: ['email'] },
        // The groups go in the ID token itself, where the relying party reads them.
        conformIdTokenClaims: false,
        findAccount: (_ctx, sub) => {
          const user = users.get(sub);
          return user ? { accountId: sub, claims: () => ({ sub, ...user, groups: [...user.groups] }) } : undefined;
        },
        interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
        features: { devInteractions: { enabled: false } },
        cookies: { keys: ['oidc-test-cookie-key'] },
      };
      provider = new Provider(issuer, configuration);
    },
    signInAs(subject, user) {
      users.set(subject, user);
      current = subject;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Cookies per origin, enough to walk a redirect chain between two servers as a browser would. */
export class CookieJar {
  readonly #byOrigin = new Map<string, Map<string, string>>();

  store(url: string, res: Response): void {
    const origin = new URL(url).origin;
    const jar = this.#byOrigin.get(origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/max-age=0/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    this.#byOrigin.set(origin, jar);
  }

  header(url: string): string {
    return [...(this.#byOrigin.get(new URL(url).origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(url: string, name: string): string | undefined {
    return this.#byOrigin.get(new URL(url).origin)?.get(name);
  }
}

/** Follows redirects by hand from `url` (GET), keeping cookies per origin, until a response is not a redirect or `stop` says so. */
export async function walkRedirects(url: string, jar: CookieJar, stop: (url: string) => boolean = () => false): Promise<{ url: string; res: Response }> {
  let at = url;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(at, { redirect: 'manual', headers: { cookie: jar.header(at) } });
    jar.store(at, res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { url: at, res };
    at = new URL(location, at).href;
    if (stop(at)) return { url: at, res };
  }
  throw new Error(`more than 20 redirects from ${url}`);
}
