import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { Command } from '../../protocol/index.ts';
import { requireConsoleBuild } from '../support/browser.ts';
import { client, createAccount, createRole } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';
import { startTestFleet } from '../support/fleet.ts';
import { api, loginAs, loginAsAdmin } from '../support/server.ts';

// Issue 23, four-eyes approval: a second account approves a factory reset and rejects a clear data on the
// Approvals page, in English and in Chinese; the requester sees its own requests there.
describe('approvals page in Chromium', () => {
  requireConsoleBuild();
  const cp = consolePage();
  let fleet: Fleet;
  let sn = '';
  let adminToken = '';
  let approverToken = '';

  beforeAll(async () => {
    fleet = await startTestFleet(cp.ts, { count: 1 });
    sn = fleet.devices[0]?.sn ?? '';
    adminToken = (await loginAsAdmin(cp.ts)).token;
    const admin = client(cp.ts, adminToken);
    const role = await createRole(admin, 'e2e-approver', ['device_list', 'approve_dangerous']);
    await createAccount(admin, 'e2eapprover', 'Approver_pass_1', role);
    approverToken = (await loginAs(cp.ts, 'e2eapprover', 'Approver_pass_1')).token;
  });
  afterAll(() => fleet?.stop());

  const request = async (msgId: number) => {
    const res = await api<{ approval?: { id: number } }>(cp.ts.server.url, 'POST', '/device-ops/command', { token: adminToken, body: { sn, msgId } });
    expect(res.data.approval?.id).toBeGreaterThan(0);
    return res.data.approval?.id ?? 0;
  };
  const signInAs = async (token: string, language: 'en' | 'zh') => {
    await cp.page.context().addCookies([
      { name: 'Admin-Token', value: token, url: cp.ts.server.url },
      { name: 'language', value: language, url: cp.ts.server.url },
    ]);
  };

  it('en: the approver sees the badge and approves a factory reset; the device runs it', async () => {
    const id = await request(Command.FactoryReset);
    await signInAs(approverToken, 'en');
    const { page } = cp;
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${cp.ts.server.url}/user/approvals/index`);
    const row = page.locator(`tr[data-id="${id}"]`);
    await row.getByText('Remote reset').waitFor();
    await page.getByTestId('approvals-menu-badge').getByText('1').waitFor();
    await page.getByTestId('approvals-badge').getByText('1 waiting for your approval').waitFor();
    expect(await row.innerText()).toContain('admin');
    await page.screenshot({ path: '/work/notes/shots/approvals/approvals-en-1366.png' });
    await row.getByTestId('approval-approve').click();
    await page.getByTestId('approval-confirm').click();
    await page.getByText('Approved: the action is running as admin').waitFor();
    // The pending list no longer holds it; the approved one shows who decided and, once run, the outcome.
    await page.getByTestId('approvals-table').getByText('No requests').waitFor();
    await page.getByTestId('approvals-state').getByText('Approved').click();
    await row.getByText('e2eapprover').waitFor();
    await expect.poll(async () => {
      await page.getByTestId('approvals-state').getByText('All').click();
      await page.getByTestId('approvals-state').getByText('Approved').click();
      return row.innerText();
    }, { timeout: 15_000 }).toContain('1 of 1 succeeded');
  });

  it('en: a bulk clear data from remote management is sent for approval, not run device by device', async () => {
    await signInAs(adminToken, 'en');
    const { page } = cp;
    await page.goto(`${cp.ts.server.url}/user/remote-management/index`);
    await page.getByTestId('control-type').getByText('By query').click();
    await page.getByTestId('remote-targets').getByText('1 devices match the query').waitFor();
    await page.getByTestId('bulk-clear').click();
    await page.getByTestId('confirm-bulk').click();
    await page.getByText(/^Sent for approval \(request \d+, devices: 1\): it runs once another account approves it$/).waitFor();
    expect(await page.getByTestId('bulk-summary').count()).toBe(0);
    await page.screenshot({ path: '/work/notes/shots/approvals/remote-bulk-sent-en-1600.png' });
  });

  it('the requester is told live, in its language, that its request was approved or rejected', async () => {
    const { page } = cp;
    const live = async (language: 'en' | 'zh', width: number, height: number) => {
      await signInAs(adminToken, language);
      await page.setViewportSize({ width, height });
      await page.goto(`${cp.ts.server.url}/user/dashboard/index`);
      await page.getByTestId('realtime-status').and(page.locator('[data-status="open"]')).waitFor();
    };
    const approver = client(cp.ts, approverToken);

    await live('en', 1366, 768);
    const approved = await request(Command.FactoryReset);
    await approver.ok('POST', `/approval/${approved}/approve`);
    await page.getByText(`Your request ${approved} was approved by e2eapprover: Remote reset on 1 device(s) is running`).waitFor();
    await page.screenshot({ path: '/work/notes/shots/approvals/live-approved-en-1366.png', animations: 'disabled' });

    await live('zh', 1600, 900);
    const rejected = await request(Command.ClearData);
    await approver.ok('POST', `/approval/${rejected}/reject`, { reason: '今天不行' });
    await page.getByText(`您的申请 ${rejected} 已被 e2eapprover 驳回：不会对 1 台设备执行“清除数据”。原因：今天不行`).waitFor();
    await page.screenshot({ path: '/work/notes/shots/approvals/live-rejected-zh-1600.png', animations: 'disabled' });
  });

  it('zh: the approver rejects a clear data with a reason; the requester sees it rejected', async () => {
    const id = await request(Command.ClearData);
    await signInAs(approverToken, 'zh');
    const { page } = cp;
    await page.setViewportSize({ width: 1600, height: 900 });
    await page.goto(`${cp.ts.server.url}/user/approvals/index`);
    const row = page.locator(`tr[data-id="${id}"]`);
    await row.getByText('清除数据').waitFor();
    await page.getByRole('heading', { name: '待审批' }).waitFor();
    expect(await page.getByTestId('approvals-table').innerText()).not.toMatch(/Pending|Approve|Reject|Clear data/);
    await page.screenshot({ path: '/work/notes/shots/approvals/approvals-zh-1600.png' });
    await row.getByTestId('approval-reject').click();
    await page.getByTestId('approval-reason').fill('今天不行');
    await page.getByTestId('approval-confirm').click();
    await page.getByText('已驳回').first().waitFor();

    // The requester: only its own requests, the rejected one with its reason.
    await signInAs(adminToken, 'zh');
    await page.goto(`${cp.ts.server.url}/user/approvals/index`);
    await page.getByTestId('approvals-state').getByText('已驳回').click();
    await page.getByTestId('approvals-mine').check();
    await row.getByText('今天不行').waitFor();
    expect(await row.getByTestId('approval-approve').count()).toBe(0);
    await page.screenshot({ path: '/work/notes/shots/approvals/approvals-zh-requester-1600.png' });
  });
});
