import { describe, expect, it } from 'vitest';
import { OnlineState } from '../../protocol/index.ts';
import { client, createOrg } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';
import { type TestServer, tryLogin } from '../support/server.ts';

let serial = 0;
async function addDevice(ts: TestServer, orgId: number, online: boolean): Promise<void> {
  await ts.server.db
    .insertInto('devices')
    .values({
      sn: `ORG-E2E-${++serial}`,
      org_id: orgId,
      secret_hash: 'x',
      model: 'm',
      system_type: 'android',
      system_version: '',
      image_version: '',
      online_state: online ? OnlineState.Online : OnlineState.Offline,
      created_at: Date.now(),
    })
    .execute();
}

describe('organisation management in Chromium (en)', () => {
  const c = consolePage();
  const row = (name: string) => c.page.locator(`tr[data-org="${name}"]`);
  const more = async (name: string, item: string) => {
    await row(name).getByTestId('org-more').click();
    await c.page.getByTestId(item).click();
  };

  it('adds with the spec fields and blur checks, views, edits, changes and resets the password, reports, kicks out, freezes and deletes', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/organization-management/index`);
    await page.getByTestId('org-all-online').getByText('Online devices in all my organisations').waitFor();
    await page.getByTestId('org-add').click();
    await page.getByTestId('org-save').click();
    await page.getByText('This item cannot be empty!').waitFor();
    await page.getByText('Choose the role of the login account').waitFor();

    const form = page.getByTestId('org-form');
    // Checked on blur, with the spec's messages; maxlength where the rule bounds the field.
    await form.locator('input[name=email]').fill('not-an-email');
    await form.locator('input[name=phone]').focus();
    await form.getByText('Enter a valid email address').waitFor();
    expect(await form.locator('input[name=alias]').getAttribute('maxlength')).toBe('128');
    await form.locator('textarea[name=publicKey]').fill('公钥');
    await form.locator('input[name=name]').focus();
    await form.getByText('Chinese characters are not allowed').waitFor();

    await form.locator('input[name=name]').fill('Acme Logistics');
    await form.locator('input[name=alias]').fill('Acme');
    await form.locator('input[name=account]').fill('acmeadmin');
    await form.locator('input[name=password]').fill('Acme_pass1');
    await form.locator('input[name=email]').fill('ops@acme.example');
    await form.locator('input[name=phone]').fill('13800138000');
    await form.locator('input[name=contactPerson]').fill('Ann Lee');
    await form.locator('textarea[name=publicKey]').fill('ssh-ed25519 AAAAC3Nza acme');
    await form.locator('input[name=expireTime]').fill('2031-05-06');
    await page.getByTestId('org-role').click();
    await page.getByRole('option', { name: 'admin', exact: true }).click();
    await page.getByTestId('org-save').click();
    await row('Acme Logistics').waitFor();
    expect((await tryLogin(ts, 'acmeadmin', 'Acme_pass1')).code).toBe(20000);
    await row('Acme Logistics').getByText('2031-05-06').waitFor();

    // A taken account name comes back onto its field.
    await page.getByTestId('org-add').click();
    await form.locator('input[name=name]').fill('Acme Again');
    await form.locator('input[name=account]').fill('acmeadmin');
    await form.locator('input[name=password]').fill('Acme_pass1');
    await page.getByTestId('org-role').click();
    await page.getByRole('option', { name: 'admin', exact: true }).click();
    await page.getByTestId('org-save').click();
    await form.locator('input[name=account]').and(page.locator('[aria-invalid=true]')).waitFor();
    await page.keyboard.press('Escape');

    // A parent's device counts include its subtree.
    const acme = (await client(ts, token).ok<{ list: { id: number; name: string }[] }>('POST', '/org/list', { pageSize: 100 })).list.find((o) => o.name === 'Acme Logistics');
    if (!acme) throw new Error('Acme Logistics not listed');
    const child = await createOrg(client(ts, token), { name: 'Acme Depot', account: 'acmedepot', password: 'Depot_pw1', parentId: acme.id });
    await addDevice(ts, child, true);
    await addDevice(ts, child, false);
    await page.reload();
    await row('Acme Logistics').getByTestId('org-devices').getByText('2 (Online 1)').waitFor();

    await row('Acme Logistics').getByTestId('org-view').click();
    await page.getByTestId('org-details').getByText('ssh-ed25519 AAAAC3Nza acme').waitFor();
    await page.keyboard.press('Escape');

    await row('Acme Logistics').getByTestId('org-edit').click();
    await form.locator('input[name=contactPerson]').fill('Bo Chen');
    await page.getByTestId('org-save').click();
    await page.getByText('Organisation saved').waitFor();
    await row('Acme Logistics').getByText('Bo Chen').waitFor();

    await more('Acme Logistics', 'org-password');
    await page.locator('input[name=org-password-next]').fill('Acme_pass2');
    await page.locator('input[name=org-password-confirm]').fill('Acme_pass3');
    await page.getByTestId('org-password-save').click();
    await page.getByText('Passwords Inconsistent').waitFor();
    await page.locator('input[name=org-password-confirm]').fill('Acme_pass2');
    await page.getByTestId('org-password-save').click();
    await page.getByText('The password of Acme Logistics was changed').waitFor();
    expect((await tryLogin(ts, 'acmeadmin', 'Acme_pass2')).code).toBe(20000);

    await more('Acme Logistics', 'org-reset');
    await page.getByTestId('org-confirm').click();
    const fresh = (await page.getByTestId('org-reset-password').textContent()) ?? '';
    expect((await tryLogin(ts, 'acmeadmin', fresh)).code).toBe(20000);
    await page.getByTestId('org-reset-close').click();

    await more('Acme Logistics', 'org-report');
    await page.getByTestId('org-report-total').getByText('2').waitFor();
    await page.keyboard.press('Escape');

    await more('Acme Logistics', 'org-kick');
    await page.getByText('Log out every session of acmeadmin (Acme Logistics)?').waitFor();
    await page.getByTestId('org-confirm').click();
    await page.getByText(/sessions of acmeadmin were ended/).waitFor();

    await row('Acme Logistics').getByTestId('org-freeze').click();
    await page.getByTestId('org-confirm').click();
    await row('Acme Logistics').getByTestId('org-state').getByText('Frozen').waitFor();
    expect((await tryLogin(ts, 'acmeadmin', fresh)).code).not.toBe(20000);

    // Deleting shows the server's refusal, and deletes an organisation that has nothing left.
    await more('Acme Depot', 'org-delete');
    await page.getByTestId('org-confirm').click();
    await page.getByText('The organisation still has devices: move or remove them first').waitFor();
    await createOrg(client(ts, token), { name: 'Acme Spare', account: 'acmespare', password: 'Spare_pw1', parentId: acme.id });
    await page.reload();
    await more('Acme Spare', 'org-delete');
    await page.getByText('Delete organisation Acme Spare?').waitFor();
    await page.getByTestId('org-confirm').click();
    await row('Acme Spare').waitFor({ state: 'detached' });
  });

  it('sorts, remembers the column choice, and selects all matching rows across pages', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    for (let i = 0; i < 12; i++) await createOrg(client(ts, token), { name: `Bulk ${String(i).padStart(2, '0')}`, account: `bulk${i}x`, password: 'Bulk_pw1' });
    // A failed load says so in the table, and Retry loads again.
    await page.route('**/org/list', (route) => route.fulfill({ status: 502, body: 'Bad gateway' }));
    await page.goto(`${ts.server.url}/user/organization-management/index`);
    await page.getByTestId('table-error').getByText('Data loading failed, please refresh the page').waitFor();
    await page.unroute('**/org/list');
    await page.getByTestId('table-error').getByRole('button', { name: 'Retry' }).click();
    await row('Bulk 11').waitFor();
    await page.getByTestId('org-search').fill('Bulk');
    await page.getByTestId('table-total').getByText('12 in all').waitFor();
    expect(await page.locator('tbody tr[data-org]').count()).toBe(10);

    await page.locator('[data-sort=name]').click();
    await page.locator('th[aria-sort=descending] [data-sort=name]').waitFor();
    await page.locator('[data-sort=name]').click();
    await page.locator('th[aria-sort=ascending]').waitFor();
    await expect.poll(async () => page.locator('tbody tr[data-org]').first().getAttribute('data-org')).toBe('Bulk 00');

    await page.getByTestId('table-columns').click();
    await page.locator('input[data-column=email]').check();
    await page.keyboard.press('Escape');
    await page.locator('thead').getByText('Email').waitFor();
    await page.reload();
    await page.locator('thead').getByText('Email').waitFor();

    await page.getByTestId('org-search').fill('Bulk');
    await page.getByTestId('table-total').getByText('12 in all').waitFor();
    await row('Bulk 11').waitFor();
    await page.getByTestId('table-select-page').check();
    await page.getByTestId('table-select-all-matching').getByText('Select all 12 matching').click();
    await page.getByText('All 12 matching rows are selected.').waitFor();
    await page.getByTestId('org-freeze-selected').click();
    await page.getByText('Freeze 12 organisations?').waitFor();
    await page.getByTestId('org-confirm').click();
    await page.getByText('12 organisations frozen').waitFor();
    const frozen = await ts.server.db.selectFrom('organisations').select('name').where('name', 'like', 'Bulk %').where('freeze_state', '=', 2).execute();
    expect(frozen).toHaveLength(12);
  });
});

describe('organisation management in Chromium (zh)', () => {
  const c = consolePage();

  it('speaks Chinese throughout: list, add dialog checks, view and kick-out confirmation', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await createOrg(client(ts, token), { name: '华东分公司', account: 'huadong', password: 'Hua_pw1', contactPerson: '王五' });
    await page.goto(`${ts.server.url}/user/organization-management/index`);
    const row = page.locator('tr[data-org="华东分公司"]');
    await row.waitFor();
    await page.getByTestId('org-all-online').getByText('我的全部组织在线设备').waitFor();
    await page.locator('thead').getByText('操作').waitFor();
    await page.getByTestId('table-columns').getByText('列').waitFor();

    await page.getByTestId('org-add').click();
    await page.getByTestId('org-save').click();
    await page.getByText('此项不能为空！').first().waitFor();
    await page.getByTestId('org-form').locator('input[name=phone]').fill('123');
    await page.getByTestId('org-form').locator('input[name=email]').focus();
    await page.getByText('请输入正确的 11 位手机号码').waitFor();
    await page.keyboard.press('Escape');

    await row.getByTestId('org-view').click();
    await page.getByTestId('org-details').getByText('王五').waitFor();
    await page.getByTestId('org-details').getByText('设备注册密钥').waitFor();
    await page.keyboard.press('Escape');

    await row.getByTestId('org-more').click();
    await page.getByTestId('org-kick').click();
    await page.getByText('确定让 huadong（华东分公司）的所有会话下线？').waitFor();
    await page.getByTestId('org-confirm').click();
    await page.getByText(/已结束 huadong 的 \d+ 个会话/).waitFor();

    // At 1366x768 every header and actions cell shows whole: nothing clipped, no wrapped action row.
    await page.setViewportSize({ width: 1366, height: 768 });
    const clipped = await page.getByTestId('org-table').evaluate((table) =>
      [...table.querySelectorAll('th, td:last-child')].filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map((cell) => cell.textContent),
    );
    expect(clipped).toEqual([]);
    const actionRows = await row.locator('td').last().evaluate((cell) => {
      const tops = new Set([...cell.querySelectorAll('button')].map((b) => Math.round(b.getBoundingClientRect().top)));
      return tops.size;
    });
    expect(actionRows).toBe(1);
    expect(await page.getByTestId('org-table').locator('thead').evaluate((h) => getComputedStyle(h).position)).toBe('sticky');

    // No English left on the page.
    const text = (await page.locator('main').innerText()).replace(/huadong|admin|MDM/gi, '');
    expect(text).not.toMatch(/\b(Add|Actions|Columns|Search|Freeze|More|View|Edit|Online|Devices)\b/);
  });
});
