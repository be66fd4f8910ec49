import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnlineState } from '../../protocol/index.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/** Issue 20: what Linux refuses (refusedOnSystem) is not offered on Linux devices, and still is on Android. */
describe('Linux devices are not offered what Linux refuses', () => {
  let ts: TestServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    token = login.token;
    const now = Date.now();
    const row = (sn: string, system: 'android' | 'linux') => ({
      sn,
      org_id: login.orgId,
      secret_hash: 'x',
      model: system === 'linux' ? 'L1 Gateway' : 'P10',
      system_type: system,
      system_version: system === 'linux' ? 'Linux 6.1' : 'Android 13',
      image_version: '241001.01',
      online_state: OnlineState.Offline,
      latest_online_time: now,
      created_at: now,
    });
    await ts.server.db.insertInto('devices').values([row('LNX0001', 'linux'), row('AND0001', 'android')]).execute();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });

  async function open(language: 'en' | 'zh', url: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, locale: language === 'zh' ? 'zh-CN' : 'en-US' });
    await context.addCookies([
      { name: 'Admin-Token', value: token, url: ts.server.url },
      { name: 'language', value: language, url: ts.server.url },
    ]);
    const page = await context.newPage();
    await page.goto(`${ts.server.url}/user${url}`);
    return page;
  }

  it('row menu: no clear data on a Linux row, there on an Android row (en)', async () => {
    const page = await open('en', '/device-management/index');
    for (const [sn, offered] of [['AND0001', 1], ['LNX0001', 0]] as const) {
      const row = page.locator(`tr[data-sn="${sn}"]`);
      await row.getByRole('button', { name: 'More actions' }).click();
      await page.getByTestId('row-action-shell').waitFor();
      expect(await page.getByTestId('row-action-clear').count()).toBe(offered);
      expect(await page.getByTestId('row-action-reset').count()).toBe(1);
      await page.keyboard.press('Escape');
      await page.getByTestId('row-action-shell').waitFor({ state: 'hidden' });
    }
    await page.context().close();
  });

  it('device view: no whitelist tab, no clear data or cache on Linux; both on Android (zh)', async () => {
    const page = await open('zh', '/device-view/index?sn=LNX0001&tab=remote');
    await page.getByTestId('remote-reset').waitFor();
    await page.getByTestId('tab-shell').waitFor();
    expect(await page.getByTestId('tab-whitelist').count()).toBe(0);
    expect(await page.getByTestId('remote-clear-data').count()).toBe(0);
    expect(await page.getByTestId('remote-clear-cache').count()).toBe(0);
    await page.goto(`${ts.server.url}/user/device-view/index?sn=AND0001&tab=remote`);
    await page.getByTestId('remote-clear-data').getByText('清除数据').waitFor();
    await page.getByTestId('tab-whitelist').getByText('白名单').waitFor();
    await page.context().close();
  });

  it('remote management: bulk clear and whitelist are not offered for Linux-only targets (en)', async () => {
    const page = await open('en', '/remote-management/index');
    await page.getByTestId('bulk-reboot').waitFor();
    expect(await page.getByTestId('bulk-clear').count()).toBe(1);
    // By selection: the Linux device alone.
    await page.getByRole('row').filter({ hasText: 'LNX0001' }).getByRole('checkbox').check();
    await page.getByTestId('remote-targets').getByText('1 devices selected').waitFor();
    await page.getByTestId('bulk-clear').waitFor({ state: 'detached' });
    expect(await page.getByTestId('bulk-whitelist').count()).toBe(0);
    expect(await page.getByTestId('bulk-reboot').count()).toBe(1);
    // Adding the Android device offers them again (the Linux one is refused before sending).
    await page.getByRole('row').filter({ hasText: 'AND0001' }).getByRole('checkbox').check();
    await page.getByTestId('bulk-clear').waitFor();
    // By query with the Linux system type.
    await page.getByTestId('control-type').getByText('By query').click();
    await page.locator('input[aria-label="System type"]').click();
    await page.getByRole('option', { name: 'Linux' }).click();
    await page.getByTestId('remote-targets').getByText('1 devices match the query').waitFor();
    await page.getByTestId('bulk-clear').waitFor({ state: 'detached' });
    expect(await page.getByTestId('bulk-whitelist').count()).toBe(0);
    await page.context().close();
  });
});
