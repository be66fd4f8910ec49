import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { startTestFleet } from '../support/fleet.ts';
import { startTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

const FLEET_SIZE = 6;
const shots = path.resolve('test-results');

describe('phone layout in Chromium at 390x844: login, live device list, device detail with reboot, notices', () => {
  let ts: TestServer;
  let fleet: Fleet;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    fleet = await startTestFleet(ts, { count: FLEET_SIZE, rebootDownMs: 1_500 });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', isMobile: true, hasTouch: true });
    page = await context.newPage();
    fs.mkdirSync(shots, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    fleet?.stop();
    await ts?.stop();
  });

  const card = (sn: string) => page.locator(`[data-testid=mobile-device-list] [data-sn="${sn}"]`);

  it("the login page's mobile-version link opens the phone layout, which logs in to the device list", async () => {
    // A phone-wide screen gets the phone layout by itself; start from the desktop one to follow the link.
    await page.goto(`${ts.server.url}/user/login`);
    await page.getByTestId('desktop-version').click();
    await page.waitForURL(/\/user\/login\?mobile=0$/);
    await page.getByTestId('mobile-version').click();
    await page.waitForURL(/\/user\/login\?mobile=1$/);
    await page.getByTestId('captcha-image').waitFor();
    const captchaResponse = page.waitForResponse((r) => r.url().endsWith('/login/captcha'));
    await page.getByTestId('captcha-image').click(); // a fresh image, as a person may ask for
    const captcha = (await (await captchaResponse).json()) as { data: { id: string } };
    await page.getByTestId('captcha-image').waitFor();
    // The phone layout offers the way back to the desktop one.
    await page.getByTestId('desktop-version').waitFor();
    const form = await page.getByTestId('login-form').boundingBox();
    expect(form && form.width).toBeLessThanOrEqual(390);

    await page.locator('input[name=account]').fill('admin');
    await page.locator('input[name=password]').fill(TEST_ADMIN_PASSWORD);
    await page.locator('input[name=code]').fill(ts.server.captcha.peekForTest(captcha.data.id) ?? '');
    await page.getByRole('button', { name: 'Log in' }).click();
    // The phone layout opens on the device list, not the dashboard.
    await page.waitForURL(/\/user\/device-management\/index$/);
    await page.getByTestId('mobile-shell').waitFor();
    await page.getByTestId('mobile-device-total').getByText(`${FLEET_SIZE} devices`).waitFor();
    expect(await page.getByTestId('sidebar').count()).toBe(0);
    // Nothing wider than the phone: no sideways scrolling of the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(shots, 'mobile-devices.png') });
  });

  it('shows the live online state: a device that drops and returns changes without a reload', async () => {
    const sn = fleet.devices[0]?.sn ?? '';
    const device = fleet.devices[0];
    if (!device) throw new Error('no simulated device');
    await card(sn).and(page.locator('[data-online=online]')).waitFor();
    device.stop();
    await card(sn).and(page.locator('[data-online=offline]')).waitFor();
    device.start();
    await card(sn).and(page.locator('[data-online=online]')).waitFor();
  });

  it('opens a device and reboots it: the result shows, the device goes offline and returns', async () => {
    const sn = fleet.devices[1]?.sn ?? '';
    await card(sn).click();
    await page.waitForURL(new RegExp(`/user/device-view/index\\?sn=${sn}$`));
    const detail = page.getByTestId('mobile-device-detail');
    await detail.getByText(sn).waitFor();
    const state = detail.getByTestId('online-state');
    await state.getByText('Online').waitFor();
    await page.getByTestId('mobile-reboot').click();
    await page.getByTestId('confirm-reboot').click();
    await page.getByText(`Reboot on ${sn}: Success`).waitFor();
    await state.getByText('Offline').waitFor();
    await state.getByText('Online').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(shots, 'mobile-device.png') });
  });

  it('reaches the notices from the tab bar, and goes back to the desktop layout from the user menu', async () => {
    await page.getByTestId('mobile-tab-user-notice').click();
    await page.waitForURL(/\/user\/user-notice\/index$/);
    await page.getByText('No notices').waitFor();
    await page.getByTestId('mobile-user-menu').click();
    await page.getByTestId('mobile-to-desktop').click();
    await page.waitForURL(/\/user\/dashboard\/index$/);
    await page.getByTestId('sidebar').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('layoutMode'))).toBe('desktop');
  });
});
