import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { client, createRole } from '../support/console-api.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

describe('single sign-on from the login page in Chromium, through a real OpenID provider', () => {
  let provider: TestOidcProvider;
  let ts: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    requireConsoleBuild();
    provider = await startOidcProvider();
    ts = await startTestServer('sqlite', {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_NAME: 'Corp SSO',
      OIDC_ROLE_MAP: JSON.stringify([{ group: 'dcc-viewers', org: 'Platform', role: 'sso-e2e-viewer' }]),
    });
    provider.register(`${ts.server.url}/login/oidc/callback`);
    await createRole(client(ts, (await loginAsAdmin(ts)).token), 'sso-e2e-viewer', ['home_list', 'device_list']);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
    await provider?.close();
  });

  const openLogin = async (lang: 'en' | 'zh') => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    await context.addCookies([{ name: 'language', value: lang, url: ts.server.url }]);
    const page = await context.newPage();
    await page.goto(`${ts.server.url}/user/login`);
    return { context, page };
  };

  it('a mapped user clicks the button and lands in the console as their own account', async () => {
    provider.signInAs('dana-0001', { preferred_username: 'dana', name: 'Dana Operator', email: 'dana@example.com', groups: ['dcc-viewers'] });
    const { context, page } = await openLogin('en');
    try {
      await page.getByTestId('sso-login').getByText('Sign in with Corp SSO').click();
      await page.waitForURL(/\/user\/(?!login)/);
      await page.getByTestId('user-menu').getByText('Dana Operator').waitFor();
    } finally {
      await context.close();
    }
  });

  it('a user whose groups map to no role is back on the login page with the reason, in Chinese', async () => {
    provider.signInAs('erin-0002', { preferred_username: 'erin', name: 'Erin', email: 'erin@example.com', groups: ['marketing'] });
    const { context, page } = await openLogin('zh');
    try {
      await page.getByTestId('sso-login').getByText('使用Corp SSO登录').click();
      await page.waitForURL(/\/user\/login\?sso_error=/);
      expect(await page.getByTestId('sso-error').innerText()).toBe('您的单点登录分组在本平台没有对应角色，请联系管理员为您的分组配置角色');
    } finally {
      await context.close();
    }
  });
});
