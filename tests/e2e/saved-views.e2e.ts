import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnlineState } from '../../protocol/index.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/** Saved views of the device list (issue 23), in Chromium: save the filters, columns and sort by name, load them back, delete. */
describe('device list: saved views', () => {
  let ts: TestServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    token = login.token;
    const now = Date.now();
    await ts.server.db
      .insertInto('devices')
      .values(
        Array.from({ length: 12 }, (_, k) => ({
          sn: `SV${String(k).padStart(3, '0')}`,
          org_id: login.orgId,
          secret_hash: 'x',
          model: k < 4 ? 'P10' : 'L20',
          system_type: k < 4 ? 'android' : 'linux',
          system_version: 'v1',
          image_version: '241001.01',
          online_state: OnlineState.Offline,
          latest_online_time: now,
          created_at: now,
          battery: 10 * k,
        })),
      )
      .execute();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });

  async function openList(language: 'en' | 'zh'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, locale: language === 'zh' ? 'zh-CN' : 'en-US' });
    await context.addCookies([
      { name: 'Admin-Token', value: token, url: ts.server.url },
      { name: 'language', value: language, url: ts.server.url },
    ]);
    const page = await context.newPage();
    await page.goto(`${ts.server.url}/user/device-management/index`);
    await page.getByTestId('device-total').getByText(language === 'zh' ? '共 12 台设备' : '12 devices').waitFor();
    return page;
  }

  const shownSns = (page: Page) => page.$$eval('tbody tr[data-sn]', (rows) => rows.map((r) => r.getAttribute('data-sn')));
  const headers = (page: Page) => page.$$eval('thead th[data-column]', (ths) => ths.map((th) => th.getAttribute('data-column')));

  for (const language of ['en', 'zh'] as const) {
    it(`saves the filters, columns and sort as a named view and loads it back (${language})`, async () => {
      const tx = language === 'zh'
        ? { save: '保存视图', name: '视图名称', confirm: '确定', total: '共 4 台设备', all: '共 12 台设备', columns: '列', reset: '重置', battery: '电量' }
        : { save: 'Save view', name: 'View name', confirm: 'Confirm', total: '4 devices', all: '12 devices', columns: 'Columns', reset: 'Reset', battery: 'Battery' };
      const page = await openList(language);
      // The view: model P10, battery ascending, without the IMEI and location columns.
      await page.getByTestId('filter-model').fill('P10');
      await page.getByTestId('device-total').getByText(tx.total).waitFor();
      await page.locator('thead th[data-column="battery"] button').click(); // desc
      await page.locator('thead th[data-column="battery"] button').click(); // asc
      await page.waitForFunction(() => document.querySelector('tbody tr[data-sn]')?.getAttribute('data-sn') === 'SV000');
      await page.getByTestId('columns-menu').click();
      await page.getByTestId('column-imei').getByRole('checkbox').uncheck();
      await page.getByTestId('column-location').getByRole('checkbox').uncheck();
      await page.keyboard.press('Escape');
      expect(await headers(page)).not.toContain('imei');
      await page.getByTestId('saved-view-save').click();
      await page.getByTestId('saved-view-name').fill(`P10 by battery ${language}`);
      await page.getByTestId('saved-view-shared').check();
      await page.getByTestId('saved-view-submit').click();
      await page.getByTestId('saved-view-name').waitFor({ state: 'detached' });

      // A fresh page shows everything; loading the view puts its filters, sort and columns back.
      const again = await openList(language);
      expect(await headers(again)).toContain('imei');
      await again.getByTestId('saved-view-select').click();
      await again.getByRole('option', { name: new RegExp(`P10 by battery ${language}`) }).click();
      await again.getByTestId('device-total').getByText(tx.total).waitFor();
      await expect.poll(() => shownSns(again)).toEqual(['SV000', 'SV001', 'SV002', 'SV003']);
      expect(await again.getByTestId('filter-model').inputValue()).toBe('P10');
      const cols = await headers(again);
      expect(cols).not.toContain('imei');
      expect(cols).not.toContain('location');
      expect(cols).toContain('battery');
      expect(await again.locator('thead th[data-column="battery"]').innerText()).toContain(`${tx.battery} ▲`);

      // Deleting it takes it off the list of views.
      await again.getByTestId('saved-view-delete').click();
      await again.getByTestId('saved-view-delete-confirm').click();
      await again.getByTestId('saved-view-delete').waitFor({ state: 'detached' });
      await again.getByTestId('saved-view-select').click();
      expect(await again.getByRole('option', { name: new RegExp(`P10 by battery ${language}`) }).count()).toBe(0);
      await again.context().close();
      await page.context().close();
    });
  }
});
