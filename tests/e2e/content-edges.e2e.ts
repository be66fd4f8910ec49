import { describe, expect, it } from 'vitest';
import { buildApk } from '../fixtures/apk.ts';
import { consolePage } from '../support/console-page.ts';
import { api } from '../support/server.ts';

// The edges of content and coupons a user meets (issue 20): what is refused before an upload starts, Edit,
// coupons under the minimum, and an upload that outlives a dropped network.
describe('content and coupon edges in Chromium', () => {
  const c = consolePage();
  const setLanguage = (lang: 'en' | 'zh') => c.page.context().addCookies([{ name: 'language', value: lang, url: c.ts.server.url }]);

  it('says the coupon minimum is 50 on blur in en and zh, and buys nothing below it', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    for (const [lang, text] of [
      ['en', 'Push coupon recharge minimum 50'],
      ['zh', '推送券最少充值50张'],
    ] as const) {
      await setLanguage(lang);
      await page.goto(`${ts.server.url}/user/firmware-manage/firmware-coupon`);
      const count = page.getByTestId('coupon-count');
      await count.fill('49');
      await count.blur();
      await page.getByText(text).waitFor();
      await page.getByTestId('coupon-recharge').click();
      await page.getByText(text).waitFor();
    }
    const info = await api<{ balance: number; unpaid: unknown[] }>(ts.server.url, 'GET', '/push-coupon/info', { token });
    expect(info.data).toMatchObject({ balance: 0, unpaid: [] });
    await setLanguage('en');
  });

  it('checks a firmware version by its type before uploading, and edits a firmware afterwards', async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    await setLanguage('en');
    let creates = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/upload/files')) creates++;
    });
    await page.goto(`${ts.server.url}/user/firmware-version/index`);
    await page.getByTestId('content-add').click();
    // A system version typed for an mcu image: said on blur, per type, and nothing is uploaded.
    await page.getByTestId('content-type').click();
    await page.getByRole('option', { name: 'MCU', exact: true }).click();
    await page.getByTestId('content-version').fill('201025.11');
    await page.getByTestId('content-model').click();
    await page.getByText('MCU firmware version must be vx.x (e.g. v1.03)').waitFor();
    await page.getByTestId('content-model').fill('P10');
    await page.locator('input[type=file]').setInputFiles({ name: 'mcu.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(3 * 1024 * 1024, 7) });
    await page.getByTestId('content-save').click();
    await page.getByText('MCU firmware version must be vx.x (e.g. v1.03)').waitFor();
    expect(creates).toBe(0);
    await page.getByTestId('content-version').fill('v1.03');
    await page.getByTestId('content-save').click();
    await page.locator('tr[data-content="mcu.bin"]').waitFor();
    expect(creates).toBe(1);

    // Edit: a wrong version for the type is said on blur; a right one is saved.
    await page.locator('tr[data-content="mcu.bin"]').getByTestId('content-edit').click();
    await page.getByTestId('edit-version').fill('20240101');
    await page.getByTestId('edit-remark').click();
    await page.getByText('MCU firmware version must be vx.x (e.g. v1.03)').waitFor();
    await page.getByTestId('edit-version').fill('v1.04');
    await page.getByTestId('edit-remark').fill('bench board');
    await page.getByTestId('edit-save').click();
    await page.locator('tr[data-content="mcu.bin"]').getByText('v1.04').waitFor();
    const list = await api<{ list: { version: string; remark: string }[] }>(ts.server.url, 'POST', '/img/list', { token, body: { pageNum: 1, pageSize: 10 } });
    expect(list.data.list[0]).toMatchObject({ version: 'v1.04', remark: 'bench board' });

    // zh says it in Chinese.
    await setLanguage('zh');
    await page.reload();
    await page.getByTestId('content-add').click();
    await page.getByTestId('content-version').fill('v1.03');
    await page.getByTestId('content-model').click();
    await page.getByText('系统固件版本格式应为 yyMMdd.HH（如 201025.11）或日期 yyyyMMdd（如 20240101）').waitFor();
    await setLanguage('en');
  });

  it('refuses a corrupt .apk as "not a valid APK" in en and zh, before uploading it', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    let creates = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/upload/files')) creates++;
    });
    for (const [lang, text] of [
      ['en', 'The file is not a valid APK'],
      ['zh', '该文件不是有效的 APK'],
    ] as const) {
      await setLanguage(lang);
      await page.goto(`${ts.server.url}/user/application-management/index`);
      await page.getByTestId('content-add').click();
      await page.locator('input[type=file]').setInputFiles({ name: 'broken.apk', mimeType: 'application/vnd.android.package-archive', buffer: Buffer.from('this is no zip at all') });
      await page.getByTestId('content-error').getByText(text).waitFor();
      await page.getByTestId('content-save').click();
      await page.getByTestId('content-error').getByText(text).waitFor();
    }
    expect(creates).toBe(0);
    // A real APK still goes through, and can be renamed with Edit.
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/application-management/index`);
    await page.getByTestId('content-add').click();
    await page.locator('input[type=file]').setInputFiles({ name: 'ok.apk', mimeType: 'application/vnd.android.package-archive', buffer: buildApk({ packageName: 'com.example.ok', versionName: '1.0', versionCode: 1 }) });
    await page.getByTestId('content-save').click();
    await page.locator('tr[data-content="com.example.ok"]').getByTestId('content-edit').click();
    await page.getByTestId('edit-name').fill('Scanner');
    await page.getByTestId('edit-save').click();
    await page.locator('tr[data-content="Scanner"]').waitFor();
  });
});
