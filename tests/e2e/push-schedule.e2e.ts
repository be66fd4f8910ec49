import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { buyCoupons } from '../support/coupons.ts';
import { consolePage } from '../support/console-page.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { api } from '../support/server.ts';

const HOUR = 3_600_000;
const hhmm = (at: number) => new Date(at).toISOString().slice(11, 16);

describe('push dialog: a campaign in a maintenance window (issue 23), in Chromium', () => {
  const c = consolePage();
  const devices: DeviceSession[] = [];
  afterAll(() => devices.forEach((d) => d.dispose()));

  it('starts a campaign that waits for its window and says so; a window without days is refused in Chinese', { timeout: 60_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await startVirtualDevices(ts, ['E2EWIN1'], devices);
    const contentId = await uploadFirmware(ts.server.url, token);
    expect((await buyCoupons(ts.server.url, token, token, 50)).balance).toBe(50);

    await page.goto(`${ts.server.url}/user/content-push/index?kind=firmware&contentId=${contentId}&sns=E2EWIN1`);
    await page.getByTestId('push-use-window').check();
    // Every day, two to three hours from now, in UTC: closed now.
    for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']) await page.getByTestId('push-window-days').getByText(day, { exact: true }).click();
    for (const day of ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']) await page.getByTestId('push-window-days').getByText(day, { exact: true }).click();
    await page.getByTestId('push-window-from').fill(hhmm(Date.now() + 2 * HOUR));
    await page.getByTestId('push-window-to').fill(hhmm(Date.now() + 3 * HOUR));
    await page.getByTestId('push-window-zone').fill('UTC');
    await page.getByRole('option', { name: 'UTC', exact: true }).click();
    await page.getByTestId('push-start').click();
    await page.getByTestId('campaign-waiting').getByText(/^Outside its maintenance window: resumes at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/).waitFor();
    // The page puts the campaign in its URL once it has shown it.
    await page.waitForURL(/\/user\/content-push\/index\?campaignId=\d+$/);
    const id = Number(new URL(page.url()).searchParams.get('campaignId'));
    const view = await api<{ waiting: string; queued: number }>(ts.server.url, 'GET', `/push/campaign/${id}`, { token });
    expect(view.data).toMatchObject({ waiting: 'outsideWindow', queued: 1 });

    // In Chinese, a window with no day is refused before anything is sent.
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/content-push/index?kind=firmware&contentId=${contentId}&sns=E2EWIN1`);
    await page.getByTestId('push-use-window').check();
    for (const day of ['周一', '周二', '周三', '周四', '周五']) await page.getByTestId('push-window-days').getByText(day, { exact: true }).click();
    await page.getByTestId('push-start').click();
    expect(await page.getByTestId('push-schedule-error').innerText()).toBe('请为维护窗口至少选择一天');
  });

  it('pushes to the devices a query picks, saying how many match as the filters change', { timeout: 60_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await page.context().addCookies([{ name: 'language', value: 'en', url: ts.server.url }]);
    const contentId = (await api<{ list: { id: number }[] }>(ts.server.url, 'POST', '/img/list', { token, body: { pageNum: 1, pageSize: 10 } })).data.list[0]?.id;
    expect(contentId).toBeGreaterThan(0);
    await page.goto(`${ts.server.url}/user/content-push/index?kind=firmware&contentId=${contentId}`);
    await page.getByText('All devices matching a query').click();
    await page.getByTestId('push-query-model').fill('P10');
    await page.getByTestId('push-query-count').getByText('Devices matching now: 1').waitFor();
    await page.getByTestId('push-query-system').click();
    await page.getByRole('option', { name: 'Linux' }).click();
    await page.getByTestId('push-query-count').getByText('Devices matching now: 0').waitFor();
    await page.getByTestId('push-query-system').click();
    await page.getByRole('option', { name: 'Android' }).click();
    await page.getByTestId('push-query-count').getByText('Devices matching now: 1').waitFor();
    await page.getByTestId('push-start').click();
    await page.waitForURL(/\/user\/content-push\/index\?campaignId=\d+$/);
    const id = Number(new URL(page.url()).searchParams.get('campaignId'));
    const view = await api<{ total: number }>(ts.server.url, 'GET', `/push/campaign/${id}`, { token });
    expect(view.data.total).toBe(1);
  });
});
