import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnlineState } from '../../protocol/index.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const DEVICES = 45;

describe('device list: page sizes and selection across pages (issue 20)', () => {
  let ts: TestServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    token = login.token;
    const now = Date.now();
    const values = Array.from({ length: DEVICES }, (_, k) => ({
      sn: `PG${String(k).padStart(4, '0')}`,
      org_id: login.orgId,
      secret_hash: 'x',
      model: 'P10',
      system_type: 'android',
      system_version: 'Android 13',
      image_version: '241001.01',
      online_state: OnlineState.Offline,
      latest_online_time: now,
      created_at: now,
    }));
    await ts.server.db.insertInto('devices').values(values).execute();
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
    await page.getByTestId('device-total').getByText(language === 'zh' ? `共 ${DEVICES} 台设备` : `${DEVICES} devices`).waitFor();
    return page;
  }

  it('pages by the chosen size, selects every matching device across pages and remarks them all (en)', async () => {
    const page = await openList('en');
    // The default is the one scroll: every row of the fleet fits the virtual list.
    await page.getByTestId('device-page-size').click();
    for (const n of [10, 20, 30, 40, 50, 100]) await page.getByRole('option', { name: `${n} / page` }).waitFor();
    await page.getByRole('option', { name: '10 / page' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-sn]').length === 10);
    const pager = page.getByTestId('device-pager');
    await pager.getByRole('button', { name: '5' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-sn]').length === 5);
    // Newest first: the last page holds the five oldest.
    expect(await page.locator('tbody tr[data-sn="PG0000"]').count()).toBe(1);

    await page.getByTestId('device-page-size').click();
    await page.getByRole('option', { name: '20 / page' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-sn]').length === 20);
    expect(await page.locator('tbody tr[data-sn="PG0044"]').count()).toBe(1);

    // Select the page, then every matching device across the pages.
    await page.getByTestId('device-select-view').check();
    await page.getByTestId('device-select-banner').getByText('The 20 devices on this page are selected.').waitFor();
    await page.getByTestId('device-select-all-matching').click();
    await page.getByTestId('device-select-banner').getByText(`All ${DEVICES} matching devices are selected.`).waitFor();
    await page.getByTestId('device-selected').getByText(`${DEVICES} selected`).waitFor();
    await pager.getByRole('button', { name: '3' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-sn]').length === 5);
    expect(await page.locator('tbody tr[data-sn] input[type=checkbox]:checked').count()).toBe(5);

    await page.getByTestId('bulk-remark').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Remark (${DEVICES})`).waitFor();
    await dialog.getByRole('textbox').fill('batch 7');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const remarked = await ts.server.db.selectFrom('devices').select('sn').where('remark', '=', 'batch 7').execute();
    expect(remarked).toHaveLength(DEVICES);

    // Allocating says that the devices drop offline for a while and their live views and shells end.
    await page.getByTestId('bulk-allocate').click();
    await dialog.getByText(`Allocate (${DEVICES})`).waitFor();
    await dialog.getByTestId('allocate-offline-note').getByText('offline for about 4 seconds, and its open live views and shells end', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.context().close();
  });

  it('offers the same in Chinese', async () => {
    const page = await openList('zh');
    await page.getByTestId('device-page-size').click();
    await page.getByRole('option', { name: '10 条/页' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-sn]').length === 10);
    await page.getByTestId('device-select-view').check();
    await page.getByTestId('device-select-banner').getByText('已选择本页 10 台设备。').waitFor();
    await page.getByTestId('device-select-all-matching').getByText(`选择全部 ${DEVICES} 台匹配的设备`).click();
    await page.getByTestId('device-select-banner').getByText(`已选择全部 ${DEVICES} 台匹配的设备。`).waitFor();
    await page.getByTestId('device-selected').getByText(`已选 ${DEVICES} 台`).waitFor();
    await page.getByTestId('bulk-allocate').click();
    await page.getByRole('dialog').getByTestId('allocate-offline-note').getByText('设备将离线约 4 秒', { exact: false }).waitFor();
    await page.context().close();
  });
});
