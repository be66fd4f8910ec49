import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { buyCoupons } from '../support/coupons.ts';
import { consolePage } from '../support/console-page.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { api, loginAsAdmin } from '../support/server.ts';

// A push held by the four-eyes policy (issue 19): decided on the approvals page, so the push page says it
// waits there instead of offering an Approve that /push/approve refuses; the pusher's own "require approval"
// still gets the Approve button (/push/approve is for that one).
describe('push page: a campaign waiting for approval, in Chromium', () => {
  const c = consolePage();
  const devices: DeviceSession[] = [];
  afterAll(() => devices.forEach((d) => d.dispose()));

  it('shows "Waiting for approval" with a link to the approvals page, after a reload too and in Chinese', { timeout: 60_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    const { orgId } = await loginAsAdmin(ts);
    await api(ts.server.url, 'POST', '/approval/policy', { token, body: { orgId, wipes: false, bulkOver: 20, campaignOver: 1, ttlMinutes: 1440 } });
    await startVirtualDevices(ts, ['E2EAPR1', 'E2EAPR2'], devices);
    const contentId = await uploadFirmware(ts.server.url, token);
    expect((await buyCoupons(ts.server.url, token, token, 50)).balance).toBe(50);
    await page.context().addCookies([{ name: 'language', value: 'en', url: ts.server.url }]);

    // Two devices, over the policy's one: held for a second account.
    await page.goto(`${ts.server.url}/user/content-push/index?kind=firmware&contentId=${contentId}&sns=E2EAPR1,E2EAPR2`);
    await page.getByTestId('push-start').click();
    await page.waitForURL(/\/user\/content-push\/index\?campaignId=\d+$/);
    const waiting = page.getByTestId('campaign-waiting-approval');
    await waiting.getByText('Waiting for approval', { exact: true }).waitFor();
    expect(await waiting.getByRole('link', { name: 'Open approvals' }).getAttribute('href')).toMatch(/\/approvals\/index$/);
    expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);

    // Read again from the URL (no start reply to tell): the pending request says so, in Chinese.
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.reload();
    await waiting.getByText('等待审批', { exact: true }).waitFor();
    await waiting.getByRole('link', { name: '前往审批' }).click();
    await page.waitForURL(/\/approvals\/index$/);
  });

  it('keeps Approve for a campaign its pusher asked a second account to approve', { timeout: 60_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    const contentId = (await api<{ list: { id: number }[] }>(ts.server.url, 'POST', '/img/list', { token, body: { pageNum: 1, pageSize: 10 } })).data.list[0]?.id;
    await page.context().addCookies([{ name: 'language', value: 'en', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/content-push/index?kind=firmware&contentId=${contentId}&sns=E2EAPR1`);
    await page.getByText('Start only after another account approves').click();
    await page.getByTestId('push-start').click();
    await page.waitForURL(/\/user\/content-push\/index\?campaignId=\d+$/);
    await page.getByTestId('campaign-state').getByText('Awaiting approval').waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    expect(await page.getByTestId('campaign-waiting-approval').count()).toBe(0);
  });

  it('lists both campaigns in the push log and the coupons they took in the ledger, in the shared table', { timeout: 60_000 }, async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await page.context().addCookies([{ name: 'language', value: 'en', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/log-management/index`);
    const campaigns = page.getByTestId('push-campaigns');
    await campaigns.getByTestId('table-total').getByText('2 in all', { exact: true }).waitFor();
    expect(await campaigns.locator('tr[data-campaign]').count()).toBe(2);
    expect(await campaigns.locator('tbody').getByText('Awaiting approval').count()).toBe(2);

    await page.goto(`${ts.server.url}/user/firmware-manage/firmware-coupon`);
    const ledger = page.getByTestId('coupon-ledger');
    await ledger.locator('tbody').getByText('Recharge (push_ticket order)').first().waitFor();
  });
});
