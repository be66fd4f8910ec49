import { describe, expect, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { api } from '../support/server.ts';

// Issue 23 in the console: API tokens from the user menu (created, shown once, revoked) and the
// organisation's webhooks under Authority, in English and Chinese.

async function bearerList(base: string, token: string): Promise<number> {
  const res = await fetch(`${base}/device/list`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  return ((await res.json()) as { code: number }).code;
}

describe('API tokens and webhooks in Chromium', () => {
  const c = consolePage();

  it('creates a token from the user menu, shows it once, and revokes it', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/dashboard/index`);
    await page.getByTestId('user-menu').click();
    await page.getByTestId('api-tokens').click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByText('No API tokens yet').waitFor();

    await page.getByTestId('token-create').click();
    await page.getByText('Enter a name').waitFor();
    await page.getByTestId('token-name').fill('e2e script');
    await page.getByTestId('token-create').click();
    await page.getByText('Choose at least one permission').waitFor();
    await page.getByTestId('token-keys').click();
    await page.getByTestId('token-keys').fill('device_list');
    await page.getByRole('option', { name: /\(device_list\)/ }).click();
    await page.keyboard.press('Escape');
    await page.getByText('Choose at least one permission').waitFor({ state: 'detached' });
    await page.getByTestId('token-create').click();

    const shown = (await page.getByTestId('token-value').textContent()) ?? '';
    expect(shown).toMatch(/^dcc_/);
    expect(await bearerList(ts.server.url, shown)).toBe(20000);
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByTestId('token-table').getByRole('row', { name: /e2e script/ });
    await row.getByText('Active').waitFor();
    // Shown once: the page has no way to see it again.
    expect(await page.content()).not.toContain(shown);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await row.getByText('Revoked').waitFor();
    expect(await bearerList(ts.server.url, shown)).toBe(3);
  });

  it('adds and deletes a webhook under Authority, and shows the page in Chinese', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/integrations/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    await page.getByText('No deliveries yet').waitFor();
    await page.getByTestId('hook-url').fill('not a url');
    await page.getByTestId('hook-add').click();
    await page.getByText('Enter an http or https URL').waitFor();
    // The form checks on blur: a fixed URL clears its message; a missing secret is said under its field.
    await page.getByTestId('hook-url').fill('http://127.0.0.1:9/hook');
    await page.getByTestId('hook-secret').focus();
    await page.getByText('Enter an http or https URL').waitFor({ state: 'detached' });
    await page.getByTestId('hook-add').click();
    await page.getByText('Enter a secret').waitFor();
    await page.getByTestId('hook-secret').fill('e2e-secret');
    await page.getByTestId('hook-add').click();
    await page.getByTestId('hook-table').getByText('http://127.0.0.1:9/hook').waitFor();
    const hooks = await api<{ id: number; events: string[] }[]>(ts.server.url, 'POST', '/webhook/list', { token, body: {} });
    expect(hooks.data.map((h) => h.events)).toEqual([['device.offline']]);

    await page.getByTestId('hook-table').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('No webhooks yet').waitFor();

    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/integrations/webhooks`);
    await page.getByRole('heading', { name: 'Webhook' }).waitFor();
    await page.getByText('还没有 Webhook').waitFor();
    await page.goto(`${ts.server.url}/user/integrations/api-tokens`);
    await page.getByRole('heading', { name: 'API 令牌' }).waitFor();
  });
});
