import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readXlsx } from '../../server/reports/export.ts';
import { client, createRole } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';

describe('system operation log in Chromium', () => {
  const c = consolePage();

  it('en: actions by name with the target’s name, filtered by action, exported with the names', async () => {
    const { ts, page } = c;
    const admin = client(ts, await c.signInAsAdmin());
    const roleId = await createRole(admin, 'auditors-en', ['home_list']);
    await admin.ok('DELETE', `/permit/delRole/${roleId}`);
    await admin.ok('POST', '/permit/getRoleList', { pageNum: 1, pageSize: 10 });
    await page.goto(`${ts.server.url}/user/statistical-report/system-operation-log`);
    const table = page.getByTestId('report-table');
    const deleted = table.locator('tr[data-path="/permit/delRole/:id"]');
    await deleted.getByText('Delete role').waitFor();
    await deleted.getByText('auditors-en').waitFor();
    await deleted.getByText(`ID ${roleId}`).waitFor();
    await deleted.getByText('Success').waitFor();
    // No raw route shown by default, and read-only lists are not there at all.
    expect(await table.getByText('/permit/delRole/:id').count()).toBe(0);
    expect(await table.locator('tr[data-path="/permit/getRoleList"]').count()).toBe(0);

    await page.getByTestId('oplog-action-filter').click();
    await page.getByRole('option', { name: 'Delete role', exact: true }).click();
    await page.getByTestId('report-query').click();
    await page.getByTestId('table-total').getByText('1 in all').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-xlsx').click()]);
    const sheet = await readXlsx(fs.readFileSync(await download.path()));
    expect(sheet[0]?.slice(0, 5)).toEqual(['Time', 'Account', 'Organisation', 'Action', 'Target']);
    expect(sheet.slice(1).map((r) => [r[3], r[4]])).toEqual([['Delete role', 'auditors-en']]);
  });

  it('zh: the same in Chinese, no raw paths', async () => {
    const { ts, page } = c;
    const admin = client(ts, await c.signInAsAdmin());
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    const roleId = await createRole(admin, 'auditors-zh', ['home_list']);
    await admin.ok('DELETE', `/permit/delRole/${roleId}`);
    await page.goto(`${ts.server.url}/user/statistical-report/system-operation-log`);
    const deleted = page.getByTestId('report-table').locator('tr[data-path="/permit/delRole/:id"]').filter({ hasText: 'auditors-zh' });
    await deleted.getByText('删除角色').waitFor();
    await deleted.getByText('成功').waitFor();
    await page.getByTestId('report-table').locator('thead').getByText('操作').first().waitFor();
    const text = await page.getByTestId('report-table').innerText();
    expect(text).not.toMatch(/\/permit\/|Delete role|Success|Actions/);
  });
});
