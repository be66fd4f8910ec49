import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { loginAsAdmin, startTestServer, type TestServer, tryLogin } from '../support/server.ts';

describe('organisation management in Chromium', () => {
  let ts: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const { token } = await loginAsAdmin(ts);
    await page.context().addCookies([{ name: 'Admin-Token', value: token, url: ts.server.url }]);
  });
  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });

  const row = () => page.locator('tr[data-org="Acme Logistics"]');

  it('creates, freezes and deletes an organisation, with validation on the form', async () => {
    await page.goto(`${ts.server.url}/user/organization-management/index`);
    await page.getByTestId('org-add').click();
    await page.getByTestId('org-save').click();
    await page.getByText('This item cannot be empty!').waitFor();

    await page.locator('input[name=name]').fill('Acme Logistics');
    await page.locator('input[name=account]').fill('acmeadmin');
    await page.locator('input[name=password]').fill('Acme_pass1');
    await page.getByTestId('org-save').click();
    await row().waitFor();
    expect((await tryLogin(ts, 'acmeadmin', 'Acme_pass1')).code).toBe(20000);

    await row().getByRole('button', { name: 'Freeze' }).click();
    await page.getByTestId('org-confirm').click();
    await row().getByTestId('org-state').getByText('Frozen').waitFor();
    expect((await tryLogin(ts, 'acmeadmin', 'Acme_pass1')).code).not.toBe(20000);

    await row().getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('org-confirm').click();
    await row().waitFor({ state: 'detached' });
  });
});
