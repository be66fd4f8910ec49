import { describe, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { shots } from '../support/shots.ts';

// Screenshots of form dialogs on the shared FormActions footer for review (SHOTS_DIR=<folder>): each opened,
// submitted empty so the field errors show, at 1366x768 and 1600x900 in zh and en.
describe.runIf(!!process.env.SHOTS_DIR)('form dialogs, screenshots', () => {
  const c = consolePage();
  it('administrator, organisation, licence buy, content add and order demand dialogs in zh and en', { timeout: 180_000 }, async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    for (const lang of ['zh', 'en'] as const) {
      await page.context().addCookies([{ name: 'language', value: lang, url: ts.server.url }]);
      for (const [name, path, open, submit] of [
        ['dialog-admin', '/authority-manage/admin', 'admin-add', 'admin-save'],
        ['dialog-org', '/organization-management/index', 'org-add', 'org-save'],
        ['dialog-licence-buy', '/license-manage/index', 'licence-buy', 'licence-buy-confirm'],
        ['dialog-firmware-add', '/firmware-version/index', 'content-add', 'content-save'],
        ['dialog-order-demand', '/order-demand/index', 'demand-add', 'demand-save'],
      ] as const) {
        await page.goto(`${ts.server.url}/user${path}`);
        await page.getByTestId(open).click();
        // A count of 1 is valid: 0 shows the count's error instead of creating an order.
        if (name === 'dialog-licence-buy') await page.getByTestId('licence-buy-count').fill('0');
        await page.getByTestId(submit).click();
        await page.locator('.mantine-InputWrapper-error').first().waitFor();
        await shots(page, name, lang);
      }
    }
  });
});
