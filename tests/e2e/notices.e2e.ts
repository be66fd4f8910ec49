import { describe, expect, it } from 'vitest';
import { client } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';
import { api } from '../support/server.ts';

describe('system notices in Chromium', () => {
  const c = consolePage();

  it('the bell counts an unread notice; opening it shows the sanitised content and clears the count', async () => {
    const { ts, page } = c;
    const admin = client(ts, await c.signInAsAdmin());
    await admin.ok('POST', '/notice/publish', { title: 'Maintenance tonight', content: '<p>Gateway upgrade at <b>22:00</b></p><script>window.hacked = 1</script>' });
    await page.goto(`${ts.server.url}/user/dashboard/index`);
    const bell = page.getByTestId('notice-bell');
    await page.getByLabel('1 unread notices').waitFor();
    await bell.click();
    await page.waitForURL(/\/user\/user-notice\/index$/);
    await page.getByText('Maintenance tonight').click();
    await page.getByTestId('notice-content').getByText('22:00').waitFor();
    expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
    await page.getByLabel('0 unread notices').waitFor();
  });

  it('when the session ends elsewhere, the socket is refused: a warning shows and the page returns to login', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/dashboard/index`);
    await page.getByTestId('realtime-status').getByText('Live').waitFor();
    expect((await api(ts.server.url, 'GET', '/home/logout', { token })).code).toBe(20000);
    await page.getByText('Your session is no longer valid. Please log in again.').waitFor();
    await page.waitForURL(/\/user\/login/);
  });
});

describe('system notices in Chromium (zh)', () => {
  const c = consolePage();

  it('the bell counts in Chinese, the notice opens and clears it; a session ended elsewhere is said in Chinese', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await client(ts, token).ok('POST', '/notice/publish', { title: '今晚维护', content: '<p>网关 <b>22:00</b> 升级</p>' });
    await page.goto(`${ts.server.url}/user/dashboard/index`);
    await page.getByLabel('1 条未读通知').waitFor();
    await page.getByTestId('notice-bell').click();
    await page.waitForURL(/\/user\/user-notice\/index$/);
    await page.getByText('今晚维护').click();
    await page.getByTestId('notice-content').getByText('22:00').waitFor();
    await page.getByLabel('0 条未读通知').waitFor();

    // The socket is open before the session ends, so the refusal is the server's answer, not a failed connect.
    await page.getByTestId('realtime-status').getByText('实时', { exact: true }).waitFor();
    expect((await api(ts.server.url, 'GET', '/home/logout', { token })).code).toBe(20000);
    await page.getByText('登录已失效，请重新登录。').waitFor();
    await page.waitForURL(/\/user\/login/);
  });
});
