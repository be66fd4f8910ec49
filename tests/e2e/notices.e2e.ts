import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { client } from '../support/console-api.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

describe('system notices in Chromium', () => {
  let ts: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  });
  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });

  it('the bell counts an unread notice; opening it shows the sanitised content and clears the count', async () => {
    const { token } = await loginAsAdmin(ts);
    const admin = client(ts, token);
    await admin.ok('POST', '/notice/publish', { title: 'Maintenance tonight', content: '<p>Gateway upgrade at <b>22:00</b></p><script>window.hacked = 1</script>' });
    await page.context().addCookies([{ name: 'Admin-Token', value: token, url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/dashboard/index`);
    const bell = page.getByTestId('notice-bell');
    await page.getByLabel('1 unread notices').waitFor();
    await bell.click();
    await page.waitForURL(/\/user\/user-notice\/index$/);
    await page.getByText('Maintenance tonight').click();
    await page.getByTestId('notice-content').getByText('22:00').waitFor();
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
    await page.getByLabel('0 unread notices').waitFor();
  });
});
