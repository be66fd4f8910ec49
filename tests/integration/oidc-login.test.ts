import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Client, createOrg, createRole } from '../support/console-api.ts';
import { CookieJar, startOidcProvider, type TestOidcProvider, walkRedirects } from '../support/oidc-provider.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/** Signs in through the provider from the login page's button, as a browser would; returns where it lands and the jar. */
async function signIn(ts: TestServer): Promise<{ landed: string; jar: CookieJar; token: string | undefined }> {
  const jar = new CookieJar();
  const { url } = await walkRedirects(`${ts.server.url}/login/oidc/start`, jar, (at) => at.startsWith(ts.server.url) && !at.includes('/login/oidc/'));
  return { landed: url.slice(ts.server.url.length), jar, token: jar.get(ts.server.url, 'Admin-Token') };
}

describe('single sign-on through a real OpenID provider (authorization code with PKCE)', () => {
  let provider: TestOidcProvider;
  let ts: TestServer;
  let admin: Client;

  beforeAll(async () => {
    provider = await startOidcProvider();
    ts = await startTestServer('sqlite', {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_NAME: 'Corp SSO',
      OIDC_ROLE_MAP: JSON.stringify([
        { group: 'dcc-viewers', org: 'Platform', role: 'sso-viewer' },
        { group: 'dcc-broken', org: 'No such organisation', role: 'sso-viewer' },
        { group: 'dcc-branch', org: 'SSO Branch', role: 'sso-viewer' },
      ]),
    });
    provider.register(`${ts.server.url}/login/oidc/callback`);
    admin = client(ts, (await loginAsAdmin(ts)).token);
    await createRole(admin, 'sso-viewer', ['home_list', 'device_list']);
  });
  afterAll(async () => {
    await ts?.stop();
    await provider?.close();
  });

  it('the login page is told to offer it, under its name', async () => {
    const res = await fetch(`${ts.server.url}/login/oidc/config`);
    expect(await res.json()).toMatchObject({ code: 20000, data: { enabled: true, name: 'Corp SSO' } });
  });

  it('a user of a mapped group lands in the console with a session holding the mapped role; the next login finds the same account', async () => {
    const root = (await admin.ok<{ org: { name: string } }>('GET', '/home/getAccountDetail')).org.name;
    expect(root).toBe('Platform');
    provider.signInAs('alice-0001', { preferred_username: 'alice.smith', name: 'Alice Smith', email: 'alice@example.com', groups: ['staff', 'dcc-viewers'] });
    const first = await signIn(ts);
    expect(first.landed).toBe('/user/');
    expect(first.token).toMatch(/\S+/);
    const alice = client(ts, first.token ?? '');
    const detail = await alice.ok<{ id: number; account: string; nickname: string; roles: string[]; permissionList: string[] }>('GET', '/home/getAccountDetail');
    expect(detail).toMatchObject({ account: 'alicesmith', nickname: 'Alice Smith', roles: ['sso-viewer'] });
    expect(detail.permissionList).toEqual(expect.arrayContaining(['home_list', 'device_list']));
    // The role's keys decide, as for any login: listing devices works, managing roles does not.
    expect((await alice.call('POST', '/device/list', { pageNum: 1, pageSize: 10 })).code).toBe(20000);
    expect((await alice.call('POST', '/permit/addRole', { name: 'nope', summary: '', permissionList: ['home_list'] })).code).toBe(40003);

    const again = await signIn(ts);
    const second = await client(ts, again.token ?? '').ok<{ id: number }>('GET', '/home/getAccountDetail');
    expect(second.id).toBe(detail.id);
  });

  it('refuses a user whose groups map to nothing, and a mapping to an organisation that does not exist, with the reason on the login page', async () => {
    provider.signInAs('bob-0002', { preferred_username: 'bob', name: 'Bob', email: 'bob@example.com', groups: ['marketing'] });
    const none = await signIn(ts);
    expect(none.landed).toBe('/user/login?sso_error=auth.ssoNoRole');
    expect(none.token).toBeUndefined();

    provider.signInAs('carol-0003', { preferred_username: 'carol', name: 'Carol', email: 'carol@example.com', groups: ['dcc-broken'] });
    expect((await signIn(ts)).landed).toBe('/user/login?sso_error=auth.ssoMisconfigured');
  });

  it('sends a user of an organisation that requires two-step verification to set it up first, as a password login does', async () => {
    const branch = await createOrg(admin, { name: 'SSO Branch', account: 'ssobranch', password: 'Branch_pw1' });
    await admin.ok('POST', '/org/totp-policy', { orgId: branch, required: true });
    provider.signInAs('frank-0004', { preferred_username: 'frank', name: 'Frank', email: 'frank@example.com', groups: ['dcc-branch'] });
    const landed = await signIn(ts);
    expect(landed.landed).toBe('/user/integrations/two-step');
    const frank = client(ts, landed.token ?? '');
    // Until it is set up, the account holds no key.
    expect((await frank.call('POST', '/device/list', { pageNum: 1, pageSize: 10 })).code).toBe(40003);
  });

  it('refuses a callback without the browser that started it (no pending cookie), and a forged state', async () => {
    provider.signInAs('alice-0001', { preferred_username: 'alice.smith', name: 'Alice Smith', email: 'alice@example.com', groups: ['dcc-viewers'] });
    const jar = new CookieJar();
    // Walk to the provider's redirect back to us, but do not follow it.
    const { url: callback } = await walkRedirects(`${ts.server.url}/login/oidc/start`, jar, (at) => at.includes('/login/oidc/callback'));
    const stranger = await fetch(callback, { redirect: 'manual' });
    expect(stranger.headers.get('location')).toBe('/user/login?sso_error=auth.ssoExpired');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    const wrongState = await fetch(forged, { redirect: 'manual', headers: { cookie: jar.header(callback) } });
    expect(wrongState.headers.get('location')).toBe('/user/login?sso_error=auth.ssoFailed');
    expect(wrongState.headers.getSetCookie().some((c) => c.startsWith('Admin-Token='))).toBe(false);
  });
});

describe('single sign-on switched off', () => {
  it('is not offered, and its start refuses', async () => {
    const ts = await startTestServer('sqlite');
    try {
      expect(await (await fetch(`${ts.server.url}/login/oidc/config`)).json()).toMatchObject({ data: { enabled: false } });
      const res = await fetch(`${ts.server.url}/login/oidc/start`, { redirect: 'manual' });
      expect(res.headers.get('location')).toBe('/user/login?sso_error=auth.ssoMisconfigured');
    } finally {
      await ts.stop();
    }
  });
});
