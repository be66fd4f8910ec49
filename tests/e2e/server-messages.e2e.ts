import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { client, createOrg } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';

/**
 * Errors as keys in Chromium (docs/DECISIONS.md): with the console in Chinese, five different server
 * errors (a wrong password at login, deleting an organisation with children, a too-long name, a bad ICCID,
 * an invalid activation code) show in Chinese, and no English server text or validator wording reaches
 * the page.
 */
const ENGLISH_OR_VALIDATOR = [
  'Incorrect account or password',
  'The organisation still has child organisations',
  'length should be',
  'ICCID incorrect',
  'The activation code is invalid',
  'must match pattern',
  'must NOT',
  'required property',
  'body/',
  'querystring',
];

const shots = path.resolve('test-results');

describe('server errors in the Chinese console', () => {
  const c = consolePage();

  /** Waits for a toast (a screenshot in test-results/ when it does not come), then checks that nothing English or validator-worded is on the page. */
  async function shows(text: string): Promise<void> {
    await c.page.getByText(text, { exact: true }).first().waitFor({ timeout: 4000 }).catch(async (e: unknown) => {
      fs.mkdirSync(shots, { recursive: true });
      await c.page.screenshot({ path: path.join(shots, 'server-messages-failure.png') });
      throw e;
    });
    const body = await c.page.locator('body').innerText();
    for (const english of ENGLISH_OR_VALIDATOR) expect(body, `page shows '${english}'`).not.toContain(english);
  }

  it('a wrong password at login is refused in Chinese', async () => {
    const { ts, page } = c;
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/login`);
    // The first image loads with the page; the one to read is the fresh one a click asks for.
    await page.getByTestId('captcha-image').waitFor();
    await page.waitForLoadState('networkidle');
    const captchaResponse = page.waitForResponse((r) => r.url().endsWith('/login/captcha'));
    await page.getByTestId('captcha-image').click();
    const captcha = (await (await captchaResponse).json()) as { data: { id: string } };
    await page.getByTestId('captcha-image').waitFor();
    await page.locator('input[name=account]').fill('admin');
    await page.locator('input[name=password]').fill('Wrong_pass9');
    await page.locator('input[name=code]').fill(ts.server.captcha.peekForTest(captcha.data.id) ?? '');
    await page.getByRole('button', { name: '登录' }).click();
    await shows('账号或密码错误');
  });

  it('switching the console to Chinese shows the server errors of four screens in Chinese', async () => {
    const { ts, page } = c;
    // Start in English and switch with the language menu, as a person does.
    await page.context().clearCookies();
    const token = await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/organization-management/index`);
    await page.getByTestId('org-add').waitFor();
    await page.locator('input[aria-label="Language"]').click();
    await page.getByRole('option', { name: '中文' }).click();
    await page.locator('input[aria-label="语言"]').waitFor();

    // Deleting an organisation that still has a child organisation.
    const admin = client(ts, token);
    const parent = await createOrg(admin, { name: 'E2E Parent', account: 'e2eparent', password: 'Parent_pw1' });
    await createOrg(admin, { name: 'E2E Child', account: 'e2echild', password: 'Child_pw1', parentId: parent });
    await page.reload();
    const parentRow = page.locator('tr[data-org="E2E Parent"]');
    await parentRow.getByTestId('org-more').click();
    await page.getByTestId('org-delete').click();
    await page.getByTestId('org-confirm').click();
    await shows('该组织下还有子组织，请先删除子组织');

    // A login account another organisation already has: only the server knows (the form checks its shape,
    // and holds the name to its 128 characters itself), and its answer lands on the account field.
    await page.getByTestId('org-add').click();
    await page.locator('input[name=name]').fill('E2E Taken');
    await page.locator('input[name=account]').fill('e2eparent');
    await page.locator('input[name=password]').fill('Taken_pw1');
    await page.getByTestId('org-role').click();
    await page.getByRole('option', { name: 'admin', exact: true }).click();
    await page.getByTestId('org-save').click();
    await shows('账号已存在');

    // An ICCID of the wrong shape on the intelligent test.
    await page.goto(`${ts.server.url}/user/sim-card-management/intelligent-test`);
    await page.getByTestId('test-run').waitFor();
    await page.locator('input').last().fill('not-an-iccid');
    await page.getByTestId('test-run').click();
    // Said on the page, under the field, in the server's words in Chinese.
    await page.getByTestId('test-problem').getByText('检测无法进行：ICCID格式不正确', { exact: true }).waitFor();

    // An activation code that does not exist (the public activation page).
    await page.goto(`${ts.server.url}/user/isobus-activate`);
    await page.locator('input[name=code]').fill('NOPE-NOPE-NOPE-NOPE');
    await page.locator('input[name=sn]').fill('E2E-SN-1');
    await page.getByTestId('licence-activate').click();
    await shows('激活码无效');
  });
});
