import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { buyCoupons } from '../support/coupons.ts';
import { api } from '../support/server.ts';

/** With SHOTS_DIR set, keeps a screenshot for a person to look at (issue 20's closing note). */
async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.SHOTS_DIR;
  if (!dir) return;
  // Dialogs fade in: shoot once no transition runs.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

// Commerce edges a buyer and platform staff meet (issue 20).
describe('commerce edges in Chromium', () => {
  const c = consolePage();
  const setLanguage = (lang: 'en' | 'zh') => c.page.context().addCookies([{ name: 'language', value: lang, url: c.ts.server.url }]);

  it('requests an invoice with only the chosen type fields, checked on blur, and staff issue it with number, date and amount', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    const { orderNo } = await buyCoupons(ts.server.url, token, token, 50);
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/order-query/index`);
    const row = page.locator(`tr[data-order="${orderNo}"]`);
    // Order lines are labels, not codes.
    await row.getByText('Push coupon × 50 pcs').waitFor();
    await row.getByTestId('invoice-request').click();

    // Plain: header and tax code only.
    await page.getByTestId('invoice-header').waitFor();
    expect(await page.getByTestId('invoice-bank').count()).toBe(0);
    await page.getByTestId('invoice-header').focus();
    await page.getByTestId('invoice-taxCode').focus();
    await page.getByText('This item cannot be empty!').waitFor();
    // Special VAT: every company field, each checked on blur.
    await page.getByTestId('invoice-type').click();
    await page.getByRole('option', { name: 'Special VAT invoice', exact: false }).click();
    await page.getByTestId('invoice-bank').waitFor();
    await page.getByTestId('invoice-header').fill('Shenzhen Buyer Technology Co., Ltd.');
    await page.getByTestId('invoice-taxCode').fill('bad!');
    await page.getByTestId('invoice-bank').focus();
    await page.getByText('Tax code incorrect').waitFor();
    await page.getByTestId('invoice-taxCode').fill('91440300MA5ABCDE1X');
    await page.getByTestId('invoice-bank').fill('ICBC Shenzhen Branch');
    await page.getByTestId('invoice-bankAccount').fill('12ab');
    await page.getByTestId('invoice-address').focus();
    await page.getByText('Bank account incorrect: 8 to 30 digits').waitFor();
    await page.getByTestId('invoice-bankAccount').fill('6222 0000 1111 2222');
    await page.getByTestId('invoice-address').fill('1 Keyuan Road, Nanshan, Shenzhen');
    await page.getByTestId('invoice-telephone').fill('0755-12345678');
    await page.getByTestId('invoice-submit').click();
    await row.getByTestId('invoice-state').getByText('Invoice requested').waitFor();

    // Staff issue it: a bad number is said on blur.
    await row.getByTestId('invoice-view-open').click();
    await page.getByTestId('invoice-no').fill('12ab');
    await page.getByTestId('invoice-view').click();
    await page.getByText('Invoice number must be 8 to 20 digits').waitFor();
    await page.getByTestId('invoice-no').fill('04400123456789');
    await page.getByTestId('invoice-issue').click();
    const view = page.getByTestId('invoice-view');
    await view.getByText('04400123456789').waitFor();
    await view.getByText('Invoice issued').waitFor();
    await view.getByText('91440300MA5ABCDE1X').waitFor();
    await view.getByText('6222 0000 1111 2222').waitFor();
    const order = await api<{ list: { orderNo: string; realAmount: number; invoice: { amount: number; issuedAt: number } }[] }>(ts.server.url, 'GET', `/link-card-order/list?pageNum=1&pageSize=10&orderNo=${orderNo}`, { token });
    const issued = order.data.list[0];
    expect(issued?.invoice.amount).toBe(issued?.realAmount);
    await view.getByText(`${((issued?.realAmount ?? 0) / 100).toFixed(2)}`).waitFor();
    await shot(page, 'invoice-issued-en');

    // Viewable afterwards, in Chinese too.
    await setLanguage('zh');
    await page.reload();
    await row.getByTestId('invoice-state').getByText('已开票').waitFor();
    await row.getByText('推送券 × 50 份').waitFor();
    await row.getByTestId('invoice-view-open').click();
    await page.getByTestId('invoice-view').getByText('发票号码').waitFor();
    await page.getByTestId('invoice-view').getByText('开票日期').waitFor();
    await shot(page, 'invoice-issued-zh');
    await setLanguage('en');
  });

  it('lets staff generate licence codes in the console, exports them with translated headers, labels and dates, and distributes two chosen in the table', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/license-manage/index`);
    await page.getByTestId('licence-generate').click();
    await page.getByTestId('licence-count').fill('0');
    await page.getByTestId('licence-label').focus();
    await page.getByText('Enter a whole number from 1 to 500').waitFor();
    await page.getByTestId('licence-count').fill('3');
    await page.getByTestId('licence-label').fill('Tractor batch');
    await page.getByTestId('licence-generate-confirm').click();
    await page.getByText('3 codes generated').waitFor();
    await expect.poll(() => page.locator('tr[data-code]').count()).toBe(3);
    await page.locator('tr[data-code]').first().getByText('Unused').waitFor();

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const file = await download;
    const text = await fs.promises.readFile(await file.path(), 'utf8');
    const [head, ...rows] = text.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(head).toBe('Activation code,Label,Status,Device SN,Validity,Expiry date,Operation time');
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r).toMatch(/,Tractor batch,Unused,,3 years,,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    await setLanguage('zh');
    await page.reload();
    const zhDownload = page.waitForEvent('download');
    await page.getByRole('button', { name: '导出', exact: true }).click();
    const zhText = await fs.promises.readFile(await (await zhDownload).path(), 'utf8');
    expect(zhText.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('激活码,标签,状态,设备SN,有效期,到期日期,操作时间');
    expect(zhText).toContain(',Tractor batch,未使用,,3年,,');
    await setLanguage('en');

    // Two codes chosen in the table are distributed to a customer; the third stays unused.
    await page.reload();
    await expect.poll(() => page.locator('tr[data-code]').count()).toBe(3);
    const codes = await page.locator('tr[data-code]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-code') ?? ''));
    for (const code of codes.slice(0, 2)) await page.getByRole('checkbox', { name: code }).check();
    await page.getByTestId('licence-distribute').click();
    await page.getByTestId('licence-distribute-confirm').click();
    await page.getByRole('dialog').getByText('This item cannot be empty!').waitFor();
    await page.getByLabel('Distribute 2 codes: label').fill('Harbour Farms');
    await page.getByTestId('licence-distribute-confirm').click();
    await page.getByText('2 codes distributed').waitFor();
    for (const code of codes.slice(0, 2)) await page.locator(`tr[data-code="${code}"]`).getByText('Distributed').waitFor();
    await page.locator(`tr[data-code="${codes[2]}"]`).getByText('Unused').waitFor();
    await page.locator(`tr[data-code="${codes[2]}"]`).getByText('Tractor batch').waitFor();
  });

  it('renders each order-demand field type as its real input, checks them on blur and saves what they hold', { timeout: 60_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/order-demand/index`);
    await page.getByTestId('demand-add').click();
    await page.locator('input[name=demandName]').fill('Harvester terminals');
    await page.locator('input[name=customer]').fill('North Farm Co-op');
    await page.locator('input[name=model]').fill('T2 Lite');
    const types = ['Text', 'Text area', 'Select', 'Checkbox', 'Date', 'Upload'];
    const labels = ['Contact phone', 'Mounting notes', 'Housing colour', 'Radios', 'Delivery date', 'Drawing'];
    for (const [i, type] of types.entries()) {
      await page.getByTestId('demand-add-field').click();
      await page.getByTestId(`demand-field-label-${i}`).fill(labels[i] ?? '');
      if (type !== 'Text') {
        await page.getByTestId(`demand-field-type-${i}`).click();
        await page.getByRole('option', { name: type, exact: true }).click();
      }
    }
    // Each type has its own input.
    const field = (i: number) => page.getByTestId(`demand-field-${i}`);
    await field(0).locator('input[name="fieldValue-0"]').fill('13800138000');
    expect(await field(1).locator('textarea').count()).toBe(1);
    await field(1).locator('textarea').fill('Cab roof, left side.\nKeep the antenna clear.');
    // A select or checkbox group needs options: said on blur.
    await page.getByTestId('demand-field-options-2').focus();
    await page.getByTestId('demand-field-options-3').focus();
    await field(2).getByText('Give the options, comma separated').waitFor();
    await page.getByTestId('demand-field-options-2').fill('Red, Blue, Grey');
    await page.getByTestId('demand-field-options-3').fill('GPS, 4G, WiFi');
    await page.getByTestId('demand-field-value-2').click();
    await page.getByRole('option', { name: 'Blue', exact: true }).click();
    await field(3).getByLabel('GPS').check();
    await field(3).getByLabel('4G').check();
    expect(await field(4).locator('input[type=date]').count()).toBe(1);
    await field(4).locator('input[type=date]').fill('2026-12-01');
    // Upload: a bad link is said on blur; a chosen file goes up and its link is the value.
    await page.getByTestId('demand-field-link').fill('ftp://drawings/x.pdf');
    await page.getByTestId('demand-field-link').blur();
    await field(5).getByText('invalid link').waitFor();
    await field(5).locator('input[type=file]').setInputFiles({ name: 'mount-drawing.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 drawing') });
    await field(5).getByText('Uploaded: mount-drawing.pdf').waitFor();
    await expect.poll(() => page.getByTestId('demand-field-link').inputValue()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/file\/download\/\d+$/);
    await shot(page, 'order-demand-form-en');

    await page.getByTestId('demand-save').click();
    await page.locator('tr[data-demand]').first().waitFor();
    const list = await api<{ list: { fields: { label: string; type: string; value: string | string[]; options?: string[] }[] }[] }>(ts.server.url, 'GET', '/order-requirements/list?pageNum=1&pageSize=10', { token });
    const fields = list.data.list[0]?.fields ?? [];
    expect(fields.map((f) => f.type)).toEqual(['text', 'textarea', 'select', 'checkbox', 'date', 'upload']);
    expect(fields.map((f) => f.value).slice(0, 5)).toEqual(['13800138000', 'Cab roof, left side.\nKeep the antenna clear.', 'Blue', ['GPS', '4G'], '2026-12-01']);
    expect(fields[5]?.value).toMatch(/\/file\/download\/\d+$/);
    const download = await fetch(String(fields[5]?.value), { headers: { 'X-Token': token } });
    expect(await download.text()).toBe('%PDF-1.4 drawing');
    // The detail shows the uploaded file as a link.
    await page.locator('tr[data-demand]').first().getByRole('button', { name: 'Detail', exact: true }).click();
    expect(await page.getByTestId('demand-upload-link').getAttribute('href')).toBe(fields[5]?.value);
    await page.keyboard.press('Escape');

    // zh: the same form in Chinese.
    await setLanguage('zh');
    await page.reload();
    await page.locator('tr[data-demand]').first().getByRole('button', { name: '编辑' }).click();
    await page.getByTestId('demand-field-4').locator('input[type=date]').waitFor();
    await shot(page, 'order-demand-form-zh');
    await setLanguage('en');
  });
});
