import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { systemClock } from '../../protocol/index.ts';
import { buildApk } from '../fixtures/apk.ts';
import { consolePage } from '../support/console-page.ts';
import { buyCoupons } from '../support/coupons.ts';
import { api } from '../support/server.ts';
import { shots } from '../support/shots.ts';

const DEVICES = 20;

describe('content upload and push in Chromium', () => {
  const c = consolePage();
  const devices: DeviceSession[] = [];
  afterAll(() => devices.forEach((d) => d.dispose()));

  it('uploads a firmware, pushes it to simulated devices and shows every device reach success', { timeout: 120_000 }, async () => {
    const { ts, page } = c;
    const token = await c.signInAsAdmin();
    for (let i = 0; i < DEVICES; i++) {
      const d = createVirtualDevice({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn: `E2EPUSH${String(i).padStart(3, '0')}`,
        enrollKey: ts.server.seeded.enrollKey,
        info: { model: 'P10', systemType: 'android', systemVersion: 'Android 12', imageVersion: '241001.01', networkType: 2 },
        transport: wsTransport(),
        clock: systemClock,
        rebootDownMs: 1_000,
      });
      devices.push(d);
      d.start();
    }
    await Promise.all(devices.map((d) => d.waitLoggedIn()));
    expect((await buyCoupons(ts.server.url, token, token, 50)).balance).toBe(50);

    await page.goto(`${ts.server.url}/user/firmware-version/index`);
    await page.getByTestId('content-add').click();
    await page.getByTestId('content-version').fill('241020.10');
    await page.getByTestId('content-model').fill('P10');
    await page.locator('input[type=file]').setInputFiles({ name: 'p10-241020.img', mimeType: 'application/octet-stream', buffer: Buffer.alloc(200_000, 1) });
    await page.getByTestId('content-save').click();
    await page.locator('tr[data-content="p10-241020.img"]').waitFor();

    await page.locator('tr[data-content="p10-241020.img"]').getByTestId('content-push').click();
    await page.waitForURL(/\/user\/content-push\/index\?kind=firmware&contentId=\d+/);
    // Typed serials (the target picker's default is picking from the device list).
    await page.getByTestId('push-mode-sns').click();
    await page.getByTestId('push-sns').fill(devices.map((d) => d.sn).join(','));
    await page.getByTestId('push-start').click();
    await page.getByTestId('push-success-count').getByText(String(DEVICES), { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByTestId('push-devices-table').getByTestId('table-total').getByText(`${DEVICES} in all`).waitFor();
    await expect.poll(() => page.locator('tr[data-push-result="1"]').count()).toBe(Math.min(DEVICES, 10));
    // The campaign is in the URL: a reload shows the same progress.
    await page.waitForURL(/\/user\/content-push\/index\?campaignId=\d+$/);
    await page.reload();
    await page.getByTestId('push-success-count').getByText(String(DEVICES), { exact: true }).waitFor();
    // Every device succeeded: the campaign is finished, and nothing is left to pause or cancel.
    await page.getByTestId('campaign-state').getByText('Finished').waitFor();
    expect(await page.getByTestId('campaign-pause').count()).toBe(0);
    expect(await page.getByTestId('campaign-cancel').count()).toBe(0);
    if (process.env.SHOTS_DIR) {
      for (const lang of ['zh', 'en'] as const) {
        await page.context().addCookies([{ name: 'language', value: lang, url: ts.server.url }]);
        await page.reload();
        await page.getByTestId('push-devices-table').getByTestId('table-total').waitFor();
        await shots(page, 'push-devices', lang);
      }
    }
    const coupons = await api<{ balance: number }>(ts.server.url, 'GET', '/push-coupon/info', { token });
    expect(coupons.data.balance).toBe(50 - DEVICES);

    // The push log needs an operation type or a serial number, and then shows the same pushes.
    await page.goto(`${ts.server.url}/user/log-management/index`);
    await page.getByTestId('log-search').click();
    await page.getByTestId('log-error').getByText('Please add at least one of the operation type or device serial number').waitFor();
  });
  it('uploads an app, reads its package from the APK, pushes it to 50 devices and sees 50 successes', { timeout: 120_000 }, async () => {
    const { ts, page } = c;
    await c.signInAsAdmin();
    const more: DeviceSession[] = [];
    for (let i = 0; i < 50 - DEVICES; i++) {
      const d = createVirtualDevice({
        gatewayUrl: ts.server.deviceSocketUrl,
        sn: `E2EAPP${String(i).padStart(3, '0')}`,
        enrollKey: ts.server.seeded.enrollKey,
        info: { model: 'T2 Lite', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.01', networkType: 2 },
        transport: wsTransport(),
        clock: systemClock,
        rebootDownMs: 1_000,
      });
      more.push(d);
      devices.push(d);
      d.start();
    }
    await Promise.all(more.map((d) => d.waitLoggedIn()));
    const fleet = devices.slice(0, 50);
    expect(fleet).toHaveLength(50);

    await page.goto(`${ts.server.url}/user/application-management/index`);
    await page.getByTestId('content-add').click();
    const apk = buildApk({ packageName: 'com.example.kiosk', versionName: '2.4.1', versionCode: 241 });
    await page.locator('input[type=file]').setInputFiles({ name: 'kiosk.apk', mimeType: 'application/vnd.android.package-archive', buffer: apk });
    await page.getByTestId('content-save').click();
    const row = page.locator('tr[data-content="com.example.kiosk"]');
    await row.getByText('2.4.1').waitFor();
    await row.getByText('241', { exact: true }).waitFor();

    await row.getByTestId('content-push').click();
    await page.waitForURL(/\/user\/content-push\/index\?kind=app&contentId=\d+/);
    await page.getByTestId('push-mode-sns').click();
    await page.getByTestId('push-sns').fill(fleet.map((d) => d.sn).join('\n'));
    await page.getByTestId('push-start').click();
    await page.getByTestId('push-success-count').getByText('50', { exact: true }).waitFor({ timeout: 60_000 });
    // The devices' rows are the shared table's: 50 in all, a page of 10 at a time, each a success by now.
    const table = page.getByTestId('push-devices-table');
    await table.getByTestId('table-total').getByText('50 in all').waitFor();
    await expect.poll(() => table.locator('tr[data-push-result="1"]').count()).toBe(10);
    await table.getByRole('button', { name: '5', exact: true }).click();
    await expect.poll(() => table.locator('tr[data-push-result="1"]').count()).toBe(10);
  });
});
