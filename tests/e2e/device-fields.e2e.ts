import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceFieldView } from '../../protocol/api/device-fields.ts';
import { OnlineState } from '../../protocol/index.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { client, type Client } from '../support/console-api.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const SNS = Array.from({ length: 6 }, (_, k) => `DF${String(k).padStart(3, '0')}`);

const TEXT = {
  en: { total: (n: number) => (n === 1 ? '1 device' : `${n} devices`), choice: 'Choice', add: 'Add field' },
  zh: { total: (n: number) => `共 ${n} 台设备`, choice: '单选', add: '新增字段' },
} as const;

/**
 * Custom device fields (issue 23) in Chromium, zh and en: an operator defines a choice field on its page,
 * sets it on a device from the device view, sees it as a column of the device list and filters by it.
 */
describe('custom device fields in the console', () => {
  let ts: TestServer;
  let browser: Browser;
  let token: string;
  let admin: Client;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    token = login.token;
    admin = client(ts, token);
    const now = Date.now();
    await ts.server.db
      .insertInto('devices')
      .values(SNS.map((sn) => ({ sn, org_id: login.orgId, secret_hash: 'x', model: 'P10', system_type: 'android', system_version: 'v1', image_version: '241001.01', online_state: OnlineState.Offline, latest_online_time: now, created_at: now })))
      .execute();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await ts?.stop();
  });

  async function open(language: 'en' | 'zh', path: string, viewport = { width: 1600, height: 1000 }): Promise<Page> {
    const context = await browser.newContext({ viewport, locale: language === 'zh' ? 'zh-CN' : 'en-US' });
    await context.addCookies([
      { name: 'Admin-Token', value: token, url: ts.server.url },
      { name: 'language', value: language, url: ts.server.url },
    ]);
    const page = await context.newPage();
    await page.goto(`${ts.server.url}/user${path}`);
    return page;
  }

  /** Defines a choice field on the fields page, as a person does. */
  async function defineField(page: Page, lang: 'en' | 'zh', name: string, options: readonly string[]): Promise<void> {
    await page.getByTestId('field-add').click();
    await page.getByTestId('field-name').fill(name);
    await page.getByTestId('field-type').click();
    await page.getByRole('option', { name: TEXT[lang].choice, exact: true }).click();
    const input = page.getByTestId('field-options');
    for (const o of options) {
      await input.fill(o);
      await input.press('Enter');
    }
    await page.getByTestId('field-save').click();
    await page.getByTestId('field-name').waitFor({ state: 'detached' });
    await page.getByTestId('field-table').locator(`tr[data-field="${name}"]`).waitFor();
  }

  for (const lang of ['en', 'zh'] as const) {
    it(`defines a field, sets it on a device, shows it as a column and filters by it (${lang})`, { timeout: 120_000 }, async () => {
      const tx = TEXT[lang];
      const name = `Tier ${lang}`;
      // 1. The fields page: the new field is listed with its type and options, in the page's language.
      const fieldsPage = await open(lang, '/device-field/index');
      await fieldsPage.getByTestId('field-add').getByText(tx.add).waitFor();
      await defineField(fieldsPage, lang, name, ['gold', 'silver']);
      const row = fieldsPage.getByTestId('field-table').locator(`tr[data-field="${name}"]`);
      expect(await row.innerText()).toMatch(new RegExp(`${tx.choice}[\\s\\S]*gold[\\s\\S]*silver`));
      await fieldsPage.context().close();
      const field = (await admin.ok<DeviceFieldView[]>('POST', '/device-field/list')).find((f) => f.name === name);
      if (!field) throw new Error(`${name} was not saved`);
      // Another device holds the other option, so the filter has something to leave out.
      await admin.ok('POST', '/device-field/set', { sn: 'DF002', values: [{ id: field.id, value: 'silver' }] });

      // 2. The device view: the operator sets DF001's tier.
      const view = await open(lang, '/device-view/index?sn=DF001');
      const section = view.getByTestId('device-fields');
      await section.locator(`[data-field="${name}"]`).waitFor();
      await view.getByTestId('device-fields-edit').click();
      await view.getByTestId(`field-value-${name}`).click();
      await view.getByRole('option', { name: 'gold', exact: true }).click();
      await view.getByTestId('field-values-save').click();
      await expect.poll(() => section.locator(`[data-field="${name}"]`).innerText()).toBe(`${name}: gold`);
      await view.context().close();

      // 3. The device list: the field is a column holding each device's value.
      const list = await open(lang, '/device-management/index');
      await list.getByTestId('device-total').getByText(tx.total(SNS.length)).waitFor();
      const header = list.locator(`thead th[data-column="field:${field.id}"]`);
      expect(await header.innerText()).toBe(name);
      await expect.poll(() => list.locator('tr[data-sn="DF001"]').innerText()).toContain('gold');
      expect(await list.locator('tr[data-sn="DF002"]').innerText()).toContain('silver');

      // 4. Filtering by the field's value leaves DF001 alone.
      await list.getByTestId('filter-field').click();
      await list.getByRole('option', { name, exact: true }).click();
      await list.getByTestId('filter-field-value').click();
      await list.getByRole('option', { name: 'gold', exact: true }).click();
      await list.getByTestId('device-total').getByText(tx.total(1)).waitFor();
      expect(await list.$$eval('tbody tr[data-sn]', (rows) => rows.map((r) => r.getAttribute('data-sn')))).toEqual(['DF001']);
      await list.context().close();
    });
  }

  // Screenshots for review (SHOTS_DIR=<folder>): the fields page and the list with the field columns, zh and en, 1366x768 and 1600x900.
  it.runIf(!!process.env.SHOTS_DIR)('screenshots of the fields page and the list with field columns', { timeout: 120_000 }, async () => {
    const dir = process.env.SHOTS_DIR ?? '';
    for (const lang of ['en', 'zh'] as const) {
      for (const viewport of [{ width: 1366, height: 768 }, { width: 1600, height: 900 }]) {
        const size = `${viewport.width}x${viewport.height}`;
        const fieldsPage = await open(lang, '/device-field/index', viewport);
        await fieldsPage.getByTestId('field-table').locator('tr[data-field]').first().waitFor();
        await fieldsPage.screenshot({ path: `${dir}/fields-page-${lang}-${size}.png` });
        await fieldsPage.getByTestId('field-table').locator('tr[data-field]').first().getByTestId('field-edit').click();
        await fieldsPage.getByTestId('field-save').waitFor({ state: 'visible' });
        await fieldsPage.screenshot({ path: `${dir}/fields-edit-${lang}-${size}.png`, animations: 'disabled' });
        await fieldsPage.context().close();

        const list = await open(lang, '/device-management/index', viewport);
        await list.getByTestId('device-total').getByText(TEXT[lang].total(SNS.length)).waitFor();
        await list.locator('thead th[data-column^="field:"]').first().waitFor();
        // Scrolled to the end, where the field columns are.
        await list.getByTestId('device-scroll').evaluate((el) => (el.scrollLeft = el.scrollWidth));
        await list.screenshot({ path: `${dir}/list-columns-${lang}-${size}.png` });
        await list.getByTestId('filter-field').click();
        await list.getByRole('option', { name: 'Tier en', exact: true }).click();
        await list.getByTestId('filter-field-value').click();
        await list.getByRole('option', { name: 'gold', exact: true }).click();
        await list.getByTestId('device-total').getByText(TEXT[lang].total(1)).waitFor();
        await list.screenshot({ path: `${dir}/list-filtered-${lang}-${size}.png` });
        await list.context().close();

        const view = await open(lang, '/device-view/index?sn=DF001', viewport);
        await view.getByTestId('device-fields').locator('[data-field]').first().waitFor();
        await view.screenshot({ path: `${dir}/device-view-${lang}-${size}.png` });
        await view.getByTestId('device-fields-edit').click();
        await view.getByTestId('field-values-save').waitFor({ state: 'visible' });
        await view.screenshot({ path: `${dir}/device-values-${lang}-${size}.png`, animations: 'disabled' });
        await view.context().close();
      }
    }
  });
});
