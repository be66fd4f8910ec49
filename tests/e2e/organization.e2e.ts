import { describe, expect, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { tryLogin } from '../support/server.ts';

describe('organisation management in Chromium', () => {
  const c = consolePage();
  const row = () => c.page.locator('tr[data-org="Acme Logistics"]');

  it('creates, freezes and deletes an organisation, with validation on the form', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/organization-management/index`);
    await page.getByTestId('org-add').click();
    await page.getByTestId('org-save').click();
    await page.getByText('This item cannot be empty!').waitFor();

    await page.locator('input[name=name]').fill('Acme Logistics');
    await page.locator('input[name=account]').fill('acmeadmin');
    await page.locator('input[name=password]').fill('Acme_pass1');
    // The login account's role is chosen explicitly (only roles the admin may give are offered).
    await page.getByText('Choose the role of the login account').waitFor();
    await page.getByTestId('org-role').click();
    await page.getByRole('option', { name: 'admin', exact: true }).click();
    await page.getByTestId('org-save').click();
    await row().waitFor();
    expect((await tryLogin(ts, 'acmeadmin', 'Acme_pass1')).code).toBe(20000);

    await row().getByRole('button', { name: 'Freeze' }).click();
    await page.getByTestId('org-confirm').click();
    await row().getByTestId('org-state').getByText('Frozen').waitFor();
    expect((await tryLogin(ts, 'acmeadmin', 'Acme_pass1')).code).not.toBe(20000);

    await row().getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('org-confirm').click();
    await row().waitFor({ state: 'detached' });
  });
});
