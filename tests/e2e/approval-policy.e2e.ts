import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import type { ApprovalPolicy, ApprovalView } from '../../protocol/api/approvals.ts';
import type { Page } from '../../protocol/api/devices.ts';
import { requireConsoleBuild } from '../support/browser.ts';
import { consolePage } from '../support/console-page.ts';
import { startTestFleet } from '../support/fleet.ts';
import { api, loginAsAdmin } from '../support/server.ts';

// Issue 23, four-eyes approval: the organisation's policy is changed in the console's form (the form
// pattern's checks in the user's language) and the next action follows it, in English and in Chinese.
describe('approval policy form in Chromium', () => {
  requireConsoleBuild();
  const cp = consolePage();
  let fleet: Fleet;
  let token = '';
  let orgId = 0;
  const shots = '/work/notes/shots/approvals';

  beforeAll(async () => {
    fleet = await startTestFleet(cp.ts, { count: 1 });
    ({ token, orgId } = await loginAsAdmin(cp.ts));
  });
  afterAll(() => fleet?.stop());

  const signIn = async (language: 'en' | 'zh') => {
    await cp.page.context().addCookies([
      { name: 'Admin-Token', value: token, url: cp.ts.server.url },
      { name: 'language', value: language, url: cp.ts.server.url },
    ]);
  };
  const policy = async () => (await api<ApprovalPolicy>(cp.ts.server.url, 'GET', `/approval/policy/${orgId}`, { token })).data;
  /** A bulk clear data of the one device, by query, from remote management. */
  const bulkClear = async (byQuery: string, matching: string) => {
    const { page } = cp;
    await page.goto(`${cp.ts.server.url}/user/remote-management/index`);
    await page.getByTestId('control-type').getByText(byQuery).click();
    await page.getByTestId('remote-targets').getByText(matching).waitFor();
    await page.getByTestId('bulk-clear').click();
    await page.getByTestId('confirm-bulk').click();
  };

  it('en: wipes stop waiting once the form turns them off; a bad number is refused in English', async () => {
    await signIn('en');
    const { page } = cp;
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${cp.ts.server.url}/user/approvals/index`);
    const form = page.getByTestId('approval-policy');
    await form.getByText('Approval policy of').waitFor();
    // The defaults: wipes wait, bulk over 20, pushes over 100, a day to decide.
    await expect.poll(() => page.getByTestId('approval-policy-ttl').inputValue()).toBe('1440');
    expect(await page.getByTestId('approval-policy-bulk').inputValue()).toBe('20');
    expect(await page.getByTestId('approval-policy-campaign').inputValue()).toBe('100');
    expect(await page.getByTestId('approval-policy-wipes').isChecked()).toBe(true);

    await page.getByTestId('approval-policy-bulk').fill('twenty');
    await page.getByTestId('approval-policy-campaign').focus();
    await form.getByText('Enter a whole number from 0 to 100000').waitFor();
    await page.screenshot({ path: `${shots}/policy-error-en-1366.png`, animations: 'disabled' });
    await page.getByTestId('approval-policy-bulk').fill('20');
    await page.getByTestId('approval-policy-wipes').click({ force: true });
    await page.getByTestId('approval-policy-save').click();
    await page.getByText('Approval policy saved').waitFor();
    expect(await policy()).toEqual({ wipes: false, bulkOver: 20, campaignOver: 100, ttlMinutes: 1440 });
    await page.screenshot({ path: `${shots}/policy-saved-en-1366.png`, animations: 'disabled' });

    // Kept: the page read again shows it.
    await page.reload();
    await expect.poll(() => page.getByTestId('approval-policy-ttl').inputValue()).toBe('1440');
    expect(await page.getByTestId('approval-policy-wipes').isChecked()).toBe(false);

    // In effect: a bulk clear data runs at once instead of waiting.
    await bulkClear('By query', '1 devices match the query');
    await page.getByTestId('bulk-summary').waitFor();
    expect(await page.getByText(/Sent for approval/).count()).toBe(0);
  });

  it('zh: a short expiry is refused in Chinese; saved, the next wipe waits and expires after it', async () => {
    await signIn('zh');
    const { page } = cp;
    await page.setViewportSize({ width: 1600, height: 900 });
    await page.goto(`${cp.ts.server.url}/user/approvals/index`);
    const form = page.getByTestId('approval-policy');
    await form.getByText('的审批策略').waitFor();
    await expect.poll(() => page.getByTestId('approval-policy-ttl').inputValue()).toBe('1440');
    await page.getByTestId('approval-policy-ttl').fill('3');
    await page.getByTestId('approval-policy-save').click();
    await form.getByText('请输入 5 到 43200 之间的整数').waitFor();
    expect((await policy()).ttlMinutes).toBe(1440);
    // Every word of the form is Chinese (its first line names the organisation, data of its own).
    expect((await form.innerText()).split('\n').slice(1).join('\n')).not.toMatch(/[A-Za-z]{3,}/);
    await page.screenshot({ path: `${shots}/policy-error-zh-1600.png`, animations: 'disabled' });

    await page.getByTestId('approval-policy-ttl').fill('60');
    await page.getByTestId('approval-policy-wipes').click({ force: true });
    await page.getByTestId('approval-policy-save').click();
    await page.getByText('审批策略已保存').waitFor();
    expect(await policy()).toEqual({ wipes: true, bulkOver: 20, campaignOver: 100, ttlMinutes: 60 });
    await page.screenshot({ path: `${shots}/policy-saved-zh-1600.png`, animations: 'disabled' });

    await bulkClear('按查询', '查询匹配 1 台设备');
    await page.getByText(/^已提交审批（申请 \d+，1 台设备）/).waitFor();
    const mine = (await api<Page<ApprovalView>>(cp.ts.server.url, 'POST', '/approval/list', { token, body: { mine: true, state: 'pending' } })).data;
    expect(mine.list).toHaveLength(1);
    const request = mine.list[0];
    expect(request && request.expiresAt - request.createdAt).toBe(60 * 60_000);
  });
});
