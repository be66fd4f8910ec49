import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { client, createOrg } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';
import { loginAsAdmin } from '../support/server.ts';

// Issue 23 in the console: an organisation requiring two-step verification sends its account to set it
// up at login; afterwards the login form asks for the authenticator's code.

const codeOf = (secret: string, offsetSteps: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

describe('two-step verification in Chromium', () => {
  const c = consolePage({ LOGIN_CAPTCHA: 'off' });

  it('sets it up when the organisation requires it, then asks for the code at login', async () => {
    const { ts, page } = c;
    const admin = client(ts, (await loginAsAdmin(ts)).token);
    const orgId = await createOrg(admin, { name: 'Two-step org', account: 'twostep', password: 'Two_step1' });
    await admin.ok('POST', '/org/totp-policy', { orgId, required: true });

    const logIn = async () => {
      await page.locator('input[name=account]').fill('twostep');
      await page.locator('input[name=password]').fill('Two_step1');
      await page.getByRole('button', { name: 'Log in' }).click();
    };
    await page.goto(`${ts.server.url}/user/login`);
    await logIn();
    await page.waitForURL(/\/user\/integrations\/two-step$/);
    await page.getByText('Your organisation requires two-step verification').waitFor();
    await page.getByTestId('two-step-begin').click();
    await page.getByTestId('two-step-qr').waitFor();
    const secret = (await page.getByTestId('two-step-secret').textContent()) ?? '';
    await page.getByTestId('two-step-code').fill(codeOf(secret, 0));
    await page.getByTestId('two-step-confirm').click();
    expect(((await page.getByTestId('recovery-codes').textContent()) ?? '').split('\n')).toHaveLength(10);
    await page.getByTestId('recovery-done').click();
    await page.getByTestId('two-step-state').getByText('On').waitFor();
    // The organisation's own login may lift the policy it is under (and set it again).
    // The switch follows the server: it changes once the policy is saved and read back, not on the click
    // itself (Playwright's uncheck() expects the change at once, which a loaded machine did not give).
    await page.getByTestId('two-step-policy').click();
    await page.getByText('Two-step verification is no longer required in your organisation').waitFor();
    expect((await ts.server.db.selectFrom('organisations').select('require_totp').where('id', '=', orgId).executeTakeFirstOrThrow()).require_totp).toBe(0);
    await expect.poll(() => page.getByTestId('two-step-policy').isChecked()).toBe(false);
    await page.getByTestId('two-step-policy').click();
    await page.getByText('Two-step verification is now required in your organisation').waitFor();
    await expect.poll(() => page.getByTestId('two-step-policy').isChecked()).toBe(true);

    await page.context().clearCookies();
    await page.goto(`${ts.server.url}/user/login`);
    await logIn();
    await page.getByText('Enter the code from your authenticator app').first().waitFor();
    await page.getByTestId('login-totp').fill(codeOf(secret, 1));
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/user\/dashboard\/index$/);
  });
});
