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

  it('waits for the network when it drops mid-upload and resumes by itself from the server offset, in en and zh', { timeout: 120_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    const CHUNK = 16 * 1024 * 1024;
    for (const [lang, waiting] of [
      ['en', 'waiting for network'],
      ['zh', '正在等待网络'],
    ] as const) {
      await setLanguage(lang);
      await page.goto(`${ts.server.url}/user/firmware-version/index`);
      const offsets: number[] = [];
      let dropped = false;
      // The second chunk is cut off as a dead network cuts it: the server holds the first 16 MiB.
      await page.route('**/upload/files/**', async (route) => {
        const r = route.request();
        if (r.method() === 'PATCH') {
          offsets.push(Number(r.headers()['upload-offset']));
          if (!dropped && offsets.length === 2) {
            dropped = true;
            await page.context().setOffline(true);
            await route.abort('internetdisconnected');
            return;
          }
        }
        await route.continue();
      });
      const name = `net-${lang}.img`;
      await page.getByTestId('content-add').click();
      await page.getByTestId('content-version').fill('201025.11');
      await page.getByTestId('content-model').fill('P10');
      await page.locator('input[type=file]').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.alloc(CHUNK + 4 * 1024 * 1024, lang === 'en' ? 1 : 2) });
      await page.getByTestId('content-save').click();
      await page.getByTestId('content-wifi-confirm').click();
      await page.getByTestId('upload-network').getByText(waiting, { exact: false }).waitFor();
      await page.context().setOffline(false);
      await page.locator(`tr[data-content="${name}"]`).waitFor({ timeout: 60_000 });
      await page.unroute('**/upload/files/**');
      // Resumed from the server's offset, never from 0 again; and no raw tus text was ever shown.
      expect(offsets[0]).toBe(0);
      expect(offsets.slice(1)).toEqual(offsets.slice(1).map(() => CHUNK));
      expect(await page.getByText('tus:', { exact: false }).count()).toBe(0);
    }
    const list = await api<{ list: { name: string; size: number }[] }>(ts.server.url, 'POST', '/img/list', { token, body: { pageNum: 1, pageSize: 10 } });
    expect(list.data.list.filter((i) => i.name.startsWith('net-')).map((i) => i.size)).toEqual([CHUNK + 4 * 1024 * 1024, CHUNK + 4 * 1024 * 1024]);
    await setLanguage('en');
  });

  it('deletes the first 100 of a larger selection across pages and keeps the rest selected', { timeout: 60_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    for (let i = 1; i <= 105; i++) {
      const made = await api(ts.server.url, 'POST', '/file/folder', { token, body: { name: `bulk-${String(i).padStart(3, '0')}` } });
      expect(made.code).toBe(20000);
    }
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/file-management/index`);
    await page.locator('tr[data-content]').first().waitFor();
    // 100 a page (newest first), select page 1, then page 2: the 100 of page 1 were selected first and go.
    await page.locator('input.mantine-Select-input').last().click();
    await page.getByRole('option', { name: '100', exact: true }).click();
    await expect.poll(() => page.locator('tr[data-content]').count()).toBe(100);
    await page.getByTestId('table-select-page').check();
    await page.getByRole('button', { name: '2', exact: true }).click();
    await expect.poll(() => page.locator('tr[data-content]').count()).toBe(5);
    await page.getByTestId('table-select-page').check();
    await page.getByTestId('content-delete').getByText('(105)').waitFor();
    await page.getByTestId('content-delete').click();
    await page.getByText('the first 100 of the 105 selected are deleted').waitFor();
    await page.getByTestId('content-delete-confirm').click();
    await page.getByTestId('content-delete').getByText('(5)').waitFor();
    const left = await api<{ total: number; list: { name: string }[] }>(ts.server.url, 'POST', '/file/list', { token, body: { pageNum: 1, pageSize: 100 } });
    expect(left.data.list.map((f) => f.name).sort()).toEqual(['bulk-001', 'bulk-002', 'bulk-003', 'bulk-004', 'bulk-005']);
  });

  it('applies for a custom firmware and quotes it, each form saying what is missing', async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    await setLanguage('en');
    await page.goto(`${ts.server.url}/user/firmware-customize/index`);
    await page.getByTestId('order-apply').click();
    await page.getByTestId('order-apply-save').click();
    await page.getByRole('dialog').getByText('This item cannot be empty!').waitFor();
    await page.getByTestId('order-title').fill('Kiosk image with our launcher');
    await page.getByTestId('order-apply-save').click();
    const row = page.locator('tr[data-order="Kiosk image with our launcher"]');
    await row.getByText('Pending').waitFor();

    await row.getByRole('button', { name: 'Quote' }).click();
    await page.getByTestId('order-step-save').click();
    await page.getByRole('dialog').getByText('This item cannot be empty!').waitFor();
    await page.getByTestId('order-step-amount').fill('1200');
    await page.getByTestId('order-step-text').fill('Two weeks of work');
    await page.getByTestId('order-step-save').click();
    await row.getByText('To pay').waitFor();
    await row.getByText('Two weeks of work').waitFor();
  });
});
