import { describe, expect, it } from 'vitest';
import { consolePage } from '../support/console-page.ts';
import { shots } from '../support/shots.ts';

describe('public pages in Chromium', () => {
  const c = consolePage();

  it('en, no session: the product guide, friendly shared-demand links, and the sign-in hand-off', async () => {
    const { ts, page } = c;
    for (const path of ['/gitbook', '/Introduction/']) {
      await page.goto(`${ts.server.url}/user${path}`);
      await page.getByTestId('guide-content').getByRole('heading', { name: 'Mobile Device Management — product guide' }).waitFor();
      await page.getByTestId('guide-toc').getByText('Organisations').waitFor();
      await page.getByTestId('guide-content').getByRole('cell', { name: 'Reset password' }).waitFor();
    }

    // The guide switches its own language (no top bar without a session).
    await page.getByTestId('guide-language').getByText('中文').click();
    await page.getByTestId('guide-content').getByRole('heading', { name: '智能终端管控平台 — 产品指南' }).waitFor();
    await page.getByTestId('guide-language').getByText('English').click();
    await page.getByTestId('guide-content').getByRole('heading', { name: 'Mobile Device Management — product guide' }).waitFor();
    await shots(page, 'public-guide', 'en');

    await page.goto(`${ts.server.url}/user/order-demand-detail`);
    await page.getByTestId('demand-link-problem').getByText('This link is incomplete').waitFor();
    await page.goto(`${ts.server.url}/user/order-demand-detail?number=OD123&token=nonsense`);
    await page.getByTestId('demand-link-problem').getByText('This link is not valid').waitFor();
    await shots(page, 'public-demand-bad-link', 'en');
    // The page explains; no raw validator message as a toast.
    expect(await page.locator('.mantine-Notification-root').count()).toBe(0);

    await page.goto(`${ts.server.url}/user/auth-redirect?redirect=%2Forganization-management%2Findex`);
    await page.waitForURL((u) => u.pathname === '/user/login' && u.searchParams.get('redirect') === '/organization-management/index');
  });

  it('zh with a session: the guide in Chinese, the hand-off goes straight on, never off-site', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/gitbook`);
    await page.getByTestId('guide-content').getByRole('heading', { name: '智能终端管控平台 — 产品指南' }).waitFor();
    await page.getByTestId('guide-toc').getByText('组织').waitFor();
    await page.getByTestId('guide-console').getByText('进入控制台').waitFor();
    await shots(page, 'public-guide', 'zh');

    await page.goto(`${ts.server.url}/user/order-demand-detail?number=OD1&token=bad`);
    await page.getByText('链接无效').waitFor();
    await shots(page, 'public-demand-bad-link', 'zh');

    await page.goto(`${ts.server.url}/user/auth-redirect?redirect=%2Fuser%2Forganization-management%2Findex`);
    await page.waitForURL((u) => u.pathname === '/user/organization-management/index');
    await page.goto(`${ts.server.url}/user/auth-redirect?redirect=%2F%2Fevil.example%2Fx`);
    await page.waitForURL((u) => u.pathname === '/user/dashboard/index');
  });
});
