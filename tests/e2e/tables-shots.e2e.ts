import { describe, expect, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { api } from '../support/server.ts';

// Screenshots of list pages on the shared DataTable for review (SHOTS_DIR=<folder>), zh and en at 1366x768.
describe.runIf(!!process.env.SHOTS_DIR)('DataTable list pages, screenshots', () => {
  const c = consolePage();
  it('link cards, licences and files in zh and en', { timeout: 120_000 }, async () => {
    const { ts, page } = c;
    const dir = process.env.SHOTS_DIR ?? '';
    const token = await c.signInAsAdmin();
    const made = await api(ts.server.url, 'POST', '/iso-bus/generate', { token, body: { count: 12, label: 'Tractor batch' } });
    expect(made.code).toBe(20000);
    for (let i = 1; i <= 3; i++) await api(ts.server.url, 'POST', '/file/folder', { token, body: { name: `folder-${i}` } });
    await page.setViewportSize({ width: 1366, height: 768 });
    for (const lang of ['zh', 'en'] as const) {
      await page.context().addCookies([{ name: 'language', value: lang, url: ts.server.url }]);
      for (const [name, path, row] of [
        ['link-cards', '/sim-card-management/card-management', 'tr[data-iccid]'],
        ['licences', '/license-manage/index', 'tr[data-code]'],
        ['files', '/file-management/index', 'tr[data-content]'],
        ['webhooks', '/integrations/webhooks', '[data-testid=delivery-table] [data-testid=table-total]'],
      ] as const) {
        await page.goto(`${ts.server.url}/user${path}`);
        await page.locator(row).first().waitFor();
        await page.getByTestId('table-loading').waitFor({ state: 'detached' });
        await page.screenshot({ path: `${dir}/${name}-${lang}-1366x768.png`, animations: 'disabled' });
      }
    }
  });
});
