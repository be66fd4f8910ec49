import { describe, expect, it } from 'vitest';
import { client, createOrg, createRole } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';
import { loginAs } from '../support/server.ts';

describe('notice and document authoring in Chromium', () => {
  const c = consolePage();

  it('platform staff publish a notice with an attachment to one organisation; its user reads it and downloads the file', async () => {
    const { ts, page } = c;
    const admin = client(ts, await c.signInAsAdmin());
    const readerRole = await createRole(admin, 'Notice reader', ['home_list']);
    await createOrg(admin, { name: 'Harbour Logistics', account: 'harbour', password: 'Harbour_pw1', roleId: readerRole });
    await createOrg(admin, { name: 'Inland Freight', account: 'inland', password: 'Inland_pw1', roleId: readerRole });

    await page.goto(`${ts.server.url}/user/notice-admin/index`);
    await page.getByTestId('notice-publish-open').click();
    await page.getByTestId('notice-title').fill('Firmware window');
    // Rich text: typed into the editor, bold from the keyboard (the server sanitises whatever arrives).
    await page.getByTestId('notice-content-input').locator('[contenteditable=true]').click();
    await page.keyboard.type('Devices update on ');
    await page.keyboard.press('ControlOrMeta+b');
    await page.keyboard.type('Friday');
    await page.getByTestId('notice-audience').getByText('Chosen organisations').click();
    await page.getByTestId('notice-orgs').click();
    await page.getByTestId('notice-orgs').fill('Harbour');
    await page.getByRole('option', { name: 'Harbour Logistics' }).click();
    await page.keyboard.press('Escape');
    const fileBytes = Buffer.from('maintenance plan: step 1, step 2\n'.repeat(200));
    await page.locator('input[type=file]').setInputFiles({ name: 'plan.txt', mimeType: 'text/plain', buffer: fileBytes });
    await page.locator('[data-attachment="plan.txt"]').waitFor();
    await page.getByTestId('notice-send').click();
    await page.getByText('Published to 1 accounts').waitFor();
    const row = page.locator('[data-sent-notice]').filter({ hasText: 'Firmware window' });
    await row.getByText('Delivered').waitFor();
    await row.getByText('plan.txt').waitFor();

    // The other organisation's user reads it in their own session.
    const reader = await loginAs(ts, 'harbour', 'Harbour_pw1');
    await page.context().clearCookies();
    await page.context().addCookies([{ name: 'Admin-Token', value: reader.token, url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/user-notice/index`);
    await page.getByText('Firmware window').click();
    await page.getByTestId('notice-content').locator('strong', { hasText: 'Friday' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
    const notices = await client(ts, reader.token).ok<{ list: { title: string; fileUrls: string[] }[] }>('GET', '/notice/page?pageNum=1&pageSize=10');
    const url = notices.list.find((n) => n.title === 'Firmware window')?.fileUrls[0];
    expect(url).toBeDefined();
    // Downloaded from the reader's page with the reader's session, as the console does.
    const downloaded = await page.evaluate(
      async ({ url, token }) => {
        const res = await fetch(url, { headers: { 'X-Token': token } });
        return { disposition: res.headers.get('content-disposition'), text: await res.text() };
      },
      { url: url ?? '', token: reader.token },
    );
    expect(downloaded.disposition).toContain('plan.txt');
    expect(downloaded.text).toBe(fileBytes.toString());

    // The organisation it was not sent to sees nothing.
    const inland = await loginAs(ts, 'inland', 'Inland_pw1');
    const theirs = await client(ts, inland.token).ok<{ total: number }>('GET', '/notice/page?pageNum=1&pageSize=10');
    expect(theirs.total).toBe(0);
  });

  it('staff author a category, a subcategory and a document, each form saying on blur or submit what is missing', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await page.context().addCookies([{ name: 'language', value: 'en', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/document-admin/index`);
    await page.getByTestId('category-add-top').click();
    // A name in at least one language: said under the English name when both are left empty.
    await page.getByTestId('category-name-en').focus();
    await page.getByTestId('category-name-zh').focus();
    await page.getByText('Give a name in at least one language').waitFor();
    await page.getByTestId('category-name-zh').fill('操作手册');
    await page.getByTestId('category-save').click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Add subcategory' }).click();
    await page.getByTestId('category-name-en').fill('Field guides');
    await page.getByTestId('category-save').click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByText('Field guides').click();

    await page.getByTestId('document-add').click();
    await page.getByTestId('document-save').click();
    await page.getByText('Give a title in at least one language').waitFor();
    await page.getByTestId('document-title-en').fill('Calibrating the sprayer');
    await page.getByTestId('document-content-en').fill('# Calibration\n\nStep one.');
    await page.getByTestId('document-save').click();
    const row = page.locator('tr[data-document]').filter({ hasText: 'Calibrating the sprayer' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Edit' }).click();
    await expect.poll(() => page.getByTestId('document-content-en').inputValue()).toBe('# Calibration\n\nStep one.');
  });
});
