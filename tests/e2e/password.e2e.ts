import { describe, expect, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { client, createAccount, createRole } from '../support/console-api.ts';
import { loginAs, TEST_ADMIN_PASSWORD, tryLogin } from '../support/server.ts';

describe('password reminder and own password change in Chromium', () => {
  const c = consolePage();

  it('a password older than 30 days prompts; going to modify changes it, checking the old one and the confirmation', async () => {
    const { ts, page } = c;
    await ts.server.db.updateTable('accounts').set({ update_password_last_time: Date.now() - 31 * 86_400_000 }).where('account', '=', 'admin').execute();
    await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/dashboard/index`);
    await page.getByText('Your password has not been changed for more than 30 days').waitFor();
    await page.getByRole('button', { name: 'Go to modify' }).click();

    await page.locator('input[name=password-old]').fill('Wrong_pass1');
    await page.locator('input[name=password-next]').fill('New_pass_2');
    await page.locator('input[name=password-confirm]').fill('New_pass_3');
    await page.getByTestId('password-save').click();
    await page.getByText('Passwords Inconsistent').waitFor();

    await page.locator('input[name=password-confirm]').fill('New_pass_2');
    await page.getByTestId('password-save').click();
    await page.getByText('The old password is incorrect').waitFor();

    await page.locator('input[name=password-old]').fill(TEST_ADMIN_PASSWORD);
    await page.getByTestId('password-save').click();
    await page.getByText('Password changed').waitFor();
    expect((await tryLogin(ts, 'admin', 'New_pass_2')).code).toBe(20000);
    expect((await tryLogin(ts, 'admin', TEST_ADMIN_PASSWORD)).code).not.toBe(20000);
  });
});

// A server of its own: the test above changes the admin's password.
describe('own password change without org_list in Chromium', () => {
  const c = consolePage();

  it('an account without org_list changes its own password, in Chinese, the wrong old one shown on its field', async () => {
    const { ts, page } = c;
    const admin = client(ts, await c.signInAsAdmin());
    const roleId = await createRole(admin, 'viewer_pw', ['home_list']);
    await createAccount(admin, 'viewerpw', 'Viewer_pw1', roleId);
    const { token } = await loginAs(ts, 'viewerpw', 'Viewer_pw1');
    await page.context().addCookies([
      { name: 'Admin-Token', value: token, url: ts.server.url },
      { name: 'language', value: 'zh', url: ts.server.url },
    ]);
    await page.goto(`${ts.server.url}/user/dashboard/index`);
    await page.getByTestId('user-menu').click();
    await page.getByTestId('change-password').click();
    await page.locator('input[name=password-old]').fill('Wrong_pass1');
    await page.locator('input[name=password-next]').fill('Viewer_pw2');
    await page.locator('input[name=password-confirm]').fill('Viewer_pw2');
    await page.getByTestId('password-save').click();
    await page.getByText('原密码不正确').waitFor();
    await page.locator('input[name=password-old]').fill('Viewer_pw1');
    await page.getByTestId('password-save').click();
    await page.getByText('密码已修改').waitFor();
    expect((await tryLogin(ts, 'viewerpw', 'Viewer_pw2')).code).toBe(20000);
  });
});
