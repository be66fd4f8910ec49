import { describe, expect, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { api } from '../support/server.ts';

// Screenshots of list pages on the shared DataTable for review (SHOTS_DIR=<folder>), zh and en at 1366x768.
describe.runIf(!!process.env.SHOTS_DIR)('DataTable list pages, screenshots', () => {
  const c = consolePage();
  it('link cards, licences, files, webhooks, monthly bills, true-point accounts and the document library in zh and en', { timeout: 120_000 }, async () => {
    const { ts, page } = c;
    const dir = process.env.SHOTS_DIR ?? '';
    const token = await c.signInAsAdmin();
    const made = await api(ts.server.url, 'POST', '/iso-bus/generate', { token, body: { count: 12, label: 'Tractor batch' } });
    expect(made.code).toBe(20000);
    for (let i = 1; i <= 3; i++) await api(ts.server.url, 'POST', '/file/folder', { token, body: { name: `folder-${i}` } });
    const top = await api<{ id: number }>(ts.server.url, 'POST', '/archives-category/save', { token, body: { nameZh: '使用指南', nameEn: 'Guides' } });
    const sub = await api<{ id: number }>(ts.server.url, 'POST', '/archives-category/save', { token, body: { parentId: top.data.id, nameZh: '入门', nameEn: 'Getting started' } });
    for (const [zh, en] of [['设备接入', 'Connecting a device'], ['推送固件', 'Pushing firmware'], ['远程控制', 'Remote control']]) {
      const saved = await api(ts.server.url, 'POST', '/archives-document/save', { token, body: { categoryId: sub.data.id, titleZh: zh, titleEn: en, contentZh: zh, contentEn: en, format: 'markdown' } });
      expect(saved.code).toBe(20000);
    }
    await page.setViewportSize({ width: 1366, height: 768 });
    for (const lang of ['zh', 'en'] as const) {
      await page.context().addCookies([{ name: 'language', value: lang, url: ts.server.url }]);
      for (const [name, path, row] of [
        ['link-cards', '/sim-card-management/card-management', 'tr[data-iccid]'],
        ['licences', '/license-manage/index', 'tr[data-code]'],
        ['files', '/file-management/index', 'tr[data-content]'],
        ['webhooks', '/integrations/webhooks', '[data-testid=delivery-table] [data-testid=table-total]'],
        ['monthly-bills', '/monthly-bill/index', 'tr[data-month]'],
        ['true-point', '/true-point/account-manage', '[data-testid=table-total]'],
        ['document-library', '/document-library/index', '[data-testid=shell-page] h3'],
      ] as const) {
        await page.goto(`${ts.server.url}/user${path}`);
        await page.locator(row).first().waitFor();
        await page.getByTestId('table-loading').waitFor({ state: 'detached' });
        await page.screenshot({ path: `${dir}/${name}-${lang}-1366x768.png`, animations: 'disabled' });
      }
    }
  });
});
