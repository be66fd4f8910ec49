import { describe, expect, it } from 'vitest';
import { client } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';

describe('small console fixes of issue 19 in Chromium', () => {
  const c = consolePage();

  it('/401 takes its own title, in en and zh', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/401`);
    await expect.poll(() => page.title()).toBe('No permission - Mobile Device Management');
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/401`);
    await expect.poll(() => page.title()).toBe('无权限 - 智能终端管控平台');
    await page.context().addCookies([{ name: 'language', value: 'en', url: ts.server.url }]);
  });

  it('the notice title error clears once the title is filled', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await page.goto(`${ts.server.url}/user/notice-admin/index`);
    await page.getByTestId('notice-publish-open').click();
    await page.getByTestId('notice-send').click();
    const error = page.getByText('This item cannot be empty!');
    await error.waitFor();
    await page.getByTestId('notice-title').fill('Filled');
    await error.waitFor({ state: 'detached' });
  });

  it('"Delete selected" asks first, in zh', async () => {
    const { ts, page } = c;
    const admin = client(ts, await c.signInAsAdmin());
    await admin.ok('POST', '/notice/publish', { title: '待删除通知', content: '<p>x</p>' });
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/user-notice/index`);
    await page.getByRole('checkbox', { name: '待删除通知' }).check();
    await page.getByTestId('notice-delete-selected').click();
    await page.getByText('确定删除所选的 1 条通知？删除后无法恢复。').waitFor();
    await page.getByTestId('notice-delete-selected-confirm').click();
    await page.getByText('待删除通知').waitFor({ state: 'detached' });
  });

  it('notice content is written in a rich-text editor with Chinese controls, and arrives as sanitised HTML', async () => {
    const { ts, page } = c;
    const admin = client(ts, await c.signInAsAdmin());
    await page.context().addCookies([{ name: 'language', value: 'zh', url: ts.server.url }]);
    await page.goto(`${ts.server.url}/user/notice-admin/index`);
    await page.getByTestId('notice-publish-open').click();
    await page.getByTestId('notice-title').fill('富文本通知');
    await page.getByTestId('notice-content-input').locator('[contenteditable=true]').click();
    await page.keyboard.type('设备将于 ');
    await page.getByRole('button', { name: '粗体' }).click();
    await page.keyboard.type('周五');
    await page.getByRole('button', { name: '粗体' }).click();
    await page.keyboard.type(' 升级');
    await page.getByTestId('notice-send').click();
    await page.locator('[data-sent-notice]').filter({ hasText: '富文本通知' }).waitFor();
    const sent = await admin.ok<{ list: { id: number; title: string }[] }>('GET', '/notice/page?pageNum=1&pageSize=10');
    const id = sent.list.find((n) => n.title === '富文本通知')?.id;
    const detail = await admin.ok<{ content: string }>('GET', `/notice/detail/${id}`);
    expect(detail.content).toBe('<p>设备将于 <strong>周五</strong> 升级</p>');
  });
});
