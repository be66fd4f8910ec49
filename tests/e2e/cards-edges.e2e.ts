import { describe, expect, it } from 'vitest';
import { overflowX } from '../support/overflow.ts';
import { consolePage } from '../support/console-page.ts';
import { api } from '../support/server.ts';

interface CardRow {
  iccid: string;
  carrier: string;
  springStatus: string | null;
  juxinStatus: number | null;
  actionsLeftToday: number | null;
}
type Page<T> = { total: number; list: T[] };

// Card edges (issue 20): the daily stop/restart allowance, the intelligent test's formatting and unknown
// ICCIDs, juxin renewals of cancelled cards, and where paying lands.
describe('card edges in Chromium', () => {
  // Paying goes through the sandbox, which exists only with PAYMENT_SANDBOX=on.
  const c = consolePage({ PAYMENT_SANDBOX: 'on' });
  const setLanguage = (lang: 'en' | 'zh') => c.page.context().addCookies([{ name: 'language', value: lang, url: c.ts.server.url }]);

  it('disables Stop and Restart of a spring card at "0 left today"', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await setLanguage('en');
    const cards = await api<Page<CardRow>>(ts.server.url, 'GET', '/springCard/list?pageNum=1&pageSize=100', { token });
    const card = cards.data.list.find((x) => x.actionsLeftToday === 2 && (x.springStatus === '10' || x.springStatus === '02'));
    expect(card).toBeDefined();
    const iccid = card?.iccid ?? '';
    // Use today's two changes: stop and restart (or the other way round).
    const first = card?.springStatus === '10' ? '01' : '00';
    for (const action of [first, first === '01' ? '00' : '01']) {
      const done = await api(ts.server.url, 'POST', '/springCard/changeStatus', { token, body: { iccid, action } });
      expect(done.code).toBe(20000);
    }
    await page.goto(`${ts.server.url}/user/spring-card-manage/spring-card-manage`);
    await page.getByPlaceholder('ICCID').fill(iccid);
    await page.getByTestId('card-search').click();
    const row = page.locator(`tr[data-iccid="${iccid}"]`);
    await row.getByText('0 left today').waitFor();
    const button = row.getByTestId(first === '01' ? 'card-stop' : 'card-restart');
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    expect(await button.getAttribute('title')).toBe('No stops or restarts left today for this card');
  });

  it('formats the intelligent test (1024-unit bytes, dates) and says so for an unknown ICCID, in en and zh', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    const cards = await api<Page<CardRow>>(ts.server.url, 'GET', '/linkCard/listCardInfo?pageNum=1&pageSize=10', { token });
    const iccid = cards.data.list[0]?.iccid ?? '';
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/sim-card-management/intelligent-test?iccid=${iccid}`);
    await page.getByTestId('check-traffic').waitFor();
    expect(await page.getByTestId('check-traffic').textContent()).toMatch(/^\d+(\.\d+)? (B|KB|MB|GB|TB) left$/);
    expect(await page.getByTestId('check-expiry').textContent()).toMatch(/^Valid until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(await page.getByTestId('check-certification').textContent()).toMatch(/^(Not certified|Personal|Enterprise)$/);

    await page.getByTestId('test-iccid').fill('89860000000000000000');
    await page.getByTestId('test-run').click();
    await page.getByTestId('test-problem').getByText('No card with ICCID 89860000000000000000 in your organisations. Check the number and try again.').waitFor();
    expect(await page.getByTestId('check-traffic').count()).toBe(0);

    await setLanguage('zh');
    await page.goto(`${ts.server.url}/user/sim-card-management/intelligent-test?iccid=${iccid}`);
    await page.getByTestId('check-traffic').waitFor();
    expect(await page.getByTestId('check-traffic').textContent()).toMatch(/^剩余 \d+(\.\d+)? (B|KB|MB|GB|TB)$/);
    expect(await page.getByTestId('check-expiry').textContent()).toMatch(/^有效期至 \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await page.getByTestId('test-iccid').fill('89860000000000000001');
    await page.getByTestId('test-run').click();
    await page.getByTestId('test-problem').getByText('您的组织中没有 ICCID 为 89860000000000000001 的卡', { exact: false }).waitFor();
    await setLanguage('en');
  });

  it('refuses to renew a cancelled juxin card, and lands on the listed order after paying a renewal', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await setLanguage('en');
    const cards = await api<Page<CardRow>>(ts.server.url, 'GET', '/zxj/list?pageNum=1&pageSize=100', { token });
    const cancelled = cards.data.list.find((x) => x.juxinStatus === 0);
    const normal = cards.data.list.find((x) => x.juxinStatus === 2);
    expect(cancelled && normal).toBeTruthy();
    const refused = await api(ts.server.url, 'POST', '/pay-data/createOrder', { token, body: { type: 'zxj_flow', cards: [{ iccid: cancelled?.iccid, count: 1 }] } });
    // The account's saved language (the previous test switched to zh) decides the server's text.
    expect(refused.message).toMatch(/^(A cancelled card cannot be renewed|已注销的卡不能续费)$/);

    await page.goto(`${ts.server.url}/user/juxin-card-manage/index`);
    await page.getByPlaceholder('ICCID').fill(cancelled?.iccid ?? '');
    await page.getByTestId('card-search').click();
    await page.locator(`tr[data-iccid="${cancelled?.iccid}"]`).waitFor();
    expect(await page.locator(`tr[data-iccid="${cancelled?.iccid}"]`).getByRole('button', { name: 'Renew' }).count()).toBe(0);

    await page.getByPlaceholder('ICCID').fill(normal?.iccid ?? '');
    await page.getByTestId('card-search').click();
    await page.locator(`tr[data-iccid="${normal?.iccid}"]`).getByRole('button', { name: 'Renew' }).click();
    await page.locator('input[name=count]').fill('2');
    await page.locator('input[name=count]').blur();
    await page.getByTestId('create-top-up').click();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByTestId('sandbox-pay').click();
    await page.waitForURL(/\/user\/order-query\/index\?orderNo=/);
    const orderNo = new URL(page.url()).searchParams.get('orderNo') ?? '';
    const row = page.locator(`tr[data-order="${orderNo}"]`);
    await row.getByTestId('order-state').getByText('Paid').waitFor();
    expect(await page.locator('tr[data-order]').count()).toBe(1);
  });

  it('juxin, in zh: pays the monthly function fee of this month and buys unified-pool cards, landing on each listed order', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await setLanguage('zh');
    const payAndLand = async () => {
      await page.getByRole('button', { name: '支付', exact: true }).click();
      await page.getByTestId('sandbox-pay').click();
      await page.waitForURL(/\/user\/order-query\/index\?orderNo=/);
      return page.locator(`tr[data-order="${new URL(page.url()).searchParams.get('orderNo') ?? ''}"]`);
    };
    await page.goto(`${ts.server.url}/user/juxin-pay-data/index`);
    await page.getByRole('tab', { name: '月功能费' }).click();
    await page.getByText('按当月有效的卡计费').waitFor();
    await page.getByTestId('create-monthly-fee').click();
    const fee = await payAndLand();
    await fee.getByText('聚信卡月功能费').waitFor();
    await fee.getByTestId('order-state').getByText('支付成功').waitFor();

    await page.goto(`${ts.server.url}/user/juxin-pay-data/index`);
    await page.getByRole('tab', { name: '购卡' }).click();
    await page.getByTestId('purchase-kind').getByText('统一池卡').click();
    await page.getByText('统一池卡在本组织内共享同一个流量池。').waitFor();
    await page.locator('input[name=quantity]').fill('2');
    await page.locator('input[name=area]').fill('广东深圳');
    await page.locator('input[name=address]').fill('科苑路 1 号');
    await page.locator('input[name=contact]').fill('李雷');
    await page.locator('input[name=phone]').fill('13800138000');
    await page.locator('input[name=phone]').blur();
    await page.getByTestId('create-purchase').click();
    const purchase = await payAndLand();
    await purchase.getByText('聚信卡统一购卡').waitFor();
    await purchase.getByTestId('delivered-cards').waitFor();
  });

  it('delivers bought cards into the inventory with logistics, and ships them: to ship, shipped with tracking, received', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/pay-data/index`);
    await page.getByRole('tab', { name: 'Card purchase' }).click();
    await page.locator('input[name=quantity]').fill('3');
    await page.locator('input[name=area]').fill('Guangdong Shenzhen');
    await page.locator('input[name=address]').fill('1 Keyuan Road');
    await page.locator('input[name=contact]').fill('Li Lei');
    await page.locator('input[name=phone]').fill('13800138000');
    await page.locator('input[name=phone]').blur();
    await page.getByTestId('create-purchase').click();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByTestId('sandbox-pay').click();
    await page.waitForURL(/\/user\/order-query\/index\?orderNo=/);
    const orderNo = new URL(page.url()).searchParams.get('orderNo') ?? '';
    const row = page.locator(`tr[data-order="${orderNo}"]`);
    await row.getByTestId('shipping-state').getByText('To ship').waitFor();
    await row.getByTestId('delivered-cards').getByText('3 cards in your inventory', { exact: false }).waitFor();
    await row.getByText('Li Lei 13800138000 Guangdong Shenzhen 1 Keyuan Road', { exact: false }).waitFor();

    // The cards are in the inventory now.
    const order = await api<{ list: { logistics: { iccids: string[] } }[] }>(ts.server.url, 'GET', `/link-card-order/list?pageNum=1&pageSize=10&orderNo=${orderNo}`, { token });
    const iccids = order.data.list[0]?.logistics.iccids ?? [];
    expect(iccids).toHaveLength(3);

    // Staff ship it: a bad tracking number is said on blur.
    await row.getByTestId('order-ship').click();
    await page.getByTestId('tracking-input').fill('x!');
    await page.getByTestId('tracking-input').blur();
    await page.getByText('Tracking number incorrect: 6 to 40 letters, digits or dashes').waitFor();
    await page.getByTestId('tracking-input').fill('SF1234567890');
    await page.getByTestId('ship-confirm').click();
    await row.getByTestId('shipping-state').getByText('Shipped').waitFor();
    await row.getByTestId('tracking-no').getByText('SF1234567890', { exact: false }).waitFor();
    await row.getByTestId('order-receive').click();
    await row.getByTestId('shipping-state').getByText('Received').waitFor();

    await page.goto(`${ts.server.url}/user/sim-card-management/card-management`);
    await page.getByPlaceholder('ICCID').fill(iccids[0] ?? '');
    await page.getByTestId('card-search').click();
    await page.locator(`tr[data-iccid="${iccids[0]}"]`).getByTestId('card-status').getByText('Not used').waitFor();
  });

  it('lets staff create a true-point service account, with the fields checked on blur', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/true-point/account-manage`);
    await page.getByTestId('tp-add').click();
    await page.getByTestId('tp-accountNo').fill('a b');
    await page.getByTestId('tp-instanceId').focus();
    await page.getByText('Service account number: 4 to 32 letters, digits, _ or -').waitFor();
    await page.getByTestId('tp-accountNo').fill('tp-e2e-0001');
    await page.getByTestId('tp-instanceId').fill('inst-e2e');
    await page.getByTestId('tp-chargeType').click();
    await page.getByRole('option', { name: 'Monthly', exact: true }).click();
    expect(await page.getByTestId('tp-duration').inputValue()).toBe('30');
    await page.getByTestId('tp-create').click();
    await page.getByText('Service account tp-e2e-0001 created').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'tp-e2e-0001' });
    await row.getByText('inst-e2e').waitFor();
    await row.getByText('Monthly').waitFor();
    await row.getByRole('button', { name: 'Activate' }).waitFor();
    // At 1366x768 in English the default columns fit: the sticky actions column covers none of them.
    await page.setViewportSize({ width: 1366, height: 768 });
    await expect.poll(() => page.locator('table:has-text("tp-e2e-0001")').evaluate(overflowX)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1600, height: 1000 });

    // The server's refusal of a taken number shows under the number's field.
    await page.getByTestId('tp-add').click();
    await page.getByTestId('tp-accountNo').fill('tp-e2e-0001');
    await page.getByTestId('tp-instanceId').fill('inst-e2e-2');
    await page.getByTestId('tp-create').click();
    await page.getByRole('dialog').getByText('This service account number is already in use').waitFor();
    await page.keyboard.press('Escape');

    await setLanguage('zh');
    await page.reload();
    await page.getByTestId('tp-add').click();
    await page.getByTestId('tp-accountNo').fill('x');
    await page.getByTestId('tp-instanceId').focus();
    await page.getByText('服务账号：4 到 32 位字母、数字、_ 或 -').waitFor();
    await setLanguage('en');
  });

  it('binds a directional link card to a group from the card list, and unbinds it from the detail', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await setLanguage('en');
    const cards = await api<Page<CardRow & { comboType: string; groupId: number | null }>>(ts.server.url, 'GET', '/linkCard/listCardInfo?pageNum=1&pageSize=100', { token });
    const card = cards.data.list.find((x) => /D$|^UPG$/.test(x.comboType));
    const groups = await api<Page<{ id: number; name: string }>>(ts.server.url, 'GET', '/linkCard/linkCardDirectionGroupList?pageNum=1&pageSize=10', { token });
    const group = groups.data.list[0];
    expect(card && group).toBeTruthy();
    const iccid = card?.iccid ?? '';
    // Unbound first, so binding is a change.
    expect((await api(ts.server.url, 'POST', '/linkCard/bindGroup', { token, body: { iccid, groupId: null } })).code).toBe(20000);

    await page.goto(`${ts.server.url}/user/sim-card-management/card-management`);
    await page.getByPlaceholder('ICCID').fill(iccid);
    await page.getByTestId('card-search').click();
    await page.locator(`tr[data-iccid="${iccid}"]`).getByTestId('card-bind-group').click();
    await page.getByTestId('bind-group-select').click();
    await page.getByRole('option', { name: group?.name ?? '', exact: true }).click();
    await page.getByTestId('bind-group-save').click();
    await expect.poll(async () => (await api<{ groupId: number | null }>(ts.server.url, 'GET', `/linkCard/getCardDetail/${iccid}`, { token })).data.groupId).toBe(group?.id);

    await page.locator(`tr[data-iccid="${iccid}"]`).getByRole('link', { name: iccid }).click();
    await page.getByTestId('detail-group').getByText(group?.name ?? '', { exact: true }).waitFor();
    await page.getByTestId('detail-bind-group').click();
    await page.getByTestId('bind-group-select').click();
    await page.getByRole('option', { name: 'No group', exact: true }).click();
    await page.getByTestId('bind-group-save').click();
    await page.getByTestId('detail-group').getByText('-', { exact: true }).waitFor();
  });
});
