import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { uploadFirmware } from '../support/firmware.ts';
import { buyCoupons } from '../support/coupons.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/** Devices the query picks, and devices beside them that it must leave alone. */
const CHOSEN = 12;
const OTHERS = 4;

describe('remote management pushes firmware by query in Chromium', () => {
  let ts: TestServer;
  let browser: Browser;
  // Two pages of one session: the push log stays open while remote management starts the push.
  let context: BrowserContext;
  let token: string;
  const devices: DeviceSession[] = [];

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    token = (await loginAsAdmin(ts)).token;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, locale: 'en-US' });
    await context.addCookies([{ name: 'Admin-Token', value: token, url: ts.server.url }]);
  });
  afterAll(async () => {
    devices.forEach((d) => d.dispose());
    await browser?.close();
    await ts?.stop();
  });

  it('pushes to a query-selected set, shows every device succeed, and the push log shows the new push live', { timeout: 120_000 }, async () => {
    const page = await context.newPage();
    const sns = [...Array.from({ length: CHOSEN }, (_, i) => `E2ERP${String(i).padStart(3, '0')}`), ...Array.from({ length: OTHERS }, (_, i) => `E2EOTHER${i}`)];
    await startVirtualDevices(ts, sns, devices);
    await uploadFirmware(ts.server.url, token);
    expect((await buyCoupons(ts.server.url, token, token, 50)).balance).toBe(50);

    // The push log is open, on firmware pushes, before the push exists.
    const log = await context.newPage();
    await log.goto(`${ts.server.url}/user/log-management/index`);
    await log.getByTestId('log-type').click();
    await log.getByRole('option', { name: 'Firmware', exact: true }).click();
    await log.getByTestId('log-search').click();
    await log.getByTestId('push-stream-status').and(log.locator('[data-status=live]')).waitFor();
    expect(await log.locator('tr[data-push-sn]').count()).toBe(0);

    // A page in the background gets no animation frames, which Playwright's clicks and the panel wait for.
    await page.bringToFront();
    await page.goto(`${ts.server.url}/user/remote-management/index`);
    await page.getByTestId('control-type').getByText('By query').click();
    await page.getByRole('textbox', { name: 'SN', exact: true }).fill('e2erp');
    await page.getByTestId('remote-targets').getByText(`${CHOSEN} devices match the query`).waitFor();
    await page.getByTestId('push-kind').getByText('Firmware').click();
    await page.getByTestId('push-content-select').click();
    await page.getByRole('option', { name: 'p10-241020.img 241020.10' }).click();
    await page.getByTestId('bulk-push').click();
    await page.getByText(`Push p10-241020.img 241020.10 to ${CHOSEN} devices?`).waitFor();
    await page.getByTestId('confirm-push').click();

    const summary = page.getByTestId('bulk-summary');
    await summary.and(page.locator(`[data-done="${CHOSEN}"]`)).waitFor({ timeout: 60_000 });
    expect(await summary.getAttribute('data-total')).toBe(String(CHOSEN));
    expect(await summary.getAttribute('data-ok')).toBe(String(CHOSEN));
    expect(await summary.textContent()).toBe(`${CHOSEN} of ${CHOSEN} done: ${CHOSEN} succeeded, 0 failed`);
    // Every chosen device has its own success row; the others were not pushed.
    const outcomes = page.getByTestId('outcome');
    expect(await outcomes.count()).toBe(CHOSEN);
    expect(await outcomes.locator('[data-result="0"]').count()).toBe(CHOSEN);
    const shownSns = await outcomes.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-sn')).sort());
    expect(shownSns).toEqual(sns.slice(0, CHOSEN));
    expect(await page.getByTestId('retry-failed').isDisabled()).toBe(true);

    // The push log shows the new push's rows without a reload, a page of them (10 a page by default).
    await log.bringToFront();
    await log.locator('tr[data-push-sn^="E2ERP"][data-push-result="1"]').nth(9).waitFor({ timeout: 30_000 });
    expect(await log.locator('tr[data-push-sn]').count()).toBe(10);
    expect(await log.locator('tr[data-push-sn^="E2EOTHER"]').count()).toBe(0);
    await log.close();
  });
});
