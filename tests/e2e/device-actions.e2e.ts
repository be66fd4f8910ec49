import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { launchChromium, requireConsoleBuild } from '../support/browser.ts';
import { client, createAccount, createRole } from '../support/console-api.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const SNS = ['ACT-0001', 'ACT-0002'] as const;
const shots = path.resolve('test-results');

// A role with the device list and some of its keys, but neither shell, file transfer nor live view.
const LIMITED_KEYS = ['device_list', 'device_base_info', 'device_system_info', 'device_runtime', 'device_reboot', 'device_capture', 'device_clear'];

describe('device actions in Chromium: permission-gated list actions and tabs, tab links, filters, confirmations', () => {
  let ts: TestServer;
  const devices: DeviceSession[] = [];
  let browser: Browser;
  let admin: Page;
  let limited: Page;

  /** A page of a new browser context signed in with `token`. */
  async function pageWith(token: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, locale: 'en-US' });
    await context.addCookies([{ name: 'Admin-Token', value: token, url: ts.server.url }]);
    return context.newPage();
  }

  beforeAll(async () => {
    requireConsoleBuild();
    ts = await startTestServer('sqlite');
    await startVirtualDevices(ts, SNS, devices, { systemVersion: 'Android 13', rebootDownMs: 500 });
    const login = await loginAsAdmin(ts);
    const api = client(ts, login.token);
    const roleId = await createRole(api, 'no-shell-no-files', LIMITED_KEYS);
    await createAccount(api, 'fieldtech', 'Field_pw_1', roleId);
    browser = await launchChromium();
    admin = await pageWith(login.token);
    limited = await pageWith((await loginAs(ts, 'fieldtech', 'Field_pw_1')).token);
  });

  afterAll(async () => {
    await browser?.close();
    for (const d of devices) d.dispose();
    await ts?.stop();
  });

  /** Opens the device list on `page` and the "more" menu of the row of `sn`. */
  async function openRowMenu(page: Page, sn: string): Promise<void> {
    await page.goto(`${ts.server.url}/user/device-management/index`);
    await page.getByTestId('device-total').getByText(`${SNS.length} devices`).waitFor();
    await page.locator(`tr[data-sn="${sn}"]`).getByRole('button', { name: 'More actions' }).click();
    await page.getByTestId('row-action-baseInfo').waitFor();
  }

  it('hides the shell and file transfer actions and tabs from a role without their keys, and shows them to admin', async () => {
    await openRowMenu(limited, SNS[0]);
    for (const action of ['baseInfo', 'systemInfo', 'runtimeInfo', 'capture', 'clear']) expect(await limited.getByTestId(`row-action-${action}`).count(), action).toBe(1);
    for (const action of ['shell', 'files', 'ssh', 'liveControl', 'reset', 'remark']) expect(await limited.getByTestId(`row-action-${action}`).count(), action).toBe(0);
    // Live view is a button on the row, also under its key.
    expect(await limited.locator(`tr[data-sn="${SNS[0]}"]`).getByRole('button', { name: 'Live view' }).count()).toBe(0);

    // Asking for a hidden tab in the address lands on the first tab the role has.
    await limited.goto(`${ts.server.url}/user/device-view/index?sn=${SNS[0]}&tab=shell`);
    await limited.getByTestId('info-table').getByText('Android 13').waitFor();
    expect(await limited.getByTestId('tab-base').getAttribute('aria-selected')).toBe('true');
    for (const tab of ['shell', 'files', 'whitelist']) expect(await limited.getByTestId(`tab-${tab}`).count(), tab).toBe(0);
    // The remote tab shows the actions the role holds, and no live view: it never starts a stream.
    await limited.getByTestId('tab-remote').click();
    await limited.getByTestId('remote-reboot').waitFor();
    expect(await limited.getByTestId('remote-clear-cache').count()).toBe(1);
    expect(await limited.getByTestId('remote-reset').count()).toBe(0);
    expect(await limited.getByTestId('live-view').count()).toBe(0);
    expect(ts.server.gateway.streams.streamCount).toBe(0);
    await limited.screenshot({ path: path.join(shots, 'device-actions-limited.png') });

    await openRowMenu(admin, SNS[0]);
    for (const action of ['shell', 'files', 'ssh', 'liveControl', 'capture', 'reset']) expect(await admin.getByTestId(`row-action-${action}`).count(), action).toBe(1);
    await admin.keyboard.press('Escape');
    await admin.goto(`${ts.server.url}/user/device-view/index?sn=${SNS[0]}`);
    await admin.getByTestId('tab-shell').waitFor();
    expect(await admin.getByTestId('tab-files').count()).toBe(1);
  });

  it('opens the device view on the tab a list action names', async () => {
    await openRowMenu(admin, SNS[1]);
    await admin.getByTestId('row-action-files').click();
    await admin.getByTestId('file-table').getByText('sdcard/').waitFor();
    expect(new URL(admin.url()).searchParams.get('tab')).toBe('files');
    expect(new URL(admin.url()).searchParams.get('sn')).toBe(SNS[1]);
    expect(await admin.getByTestId('tab-files').getAttribute('aria-selected')).toBe('true');
    // Choosing another tab keeps the address in step, so a reload stays there.
    await admin.getByTestId('tab-system').click();
    await expect.poll(() => new URL(admin.url()).searchParams.get('tab')).toBe('system');
    await admin.reload();
    await admin.getByTestId('tab-system').and(admin.locator('[aria-selected=true]')).waitFor();

    // Capture from the list takes the screenshot as the remote tab does and shows it there.
    await openRowMenu(admin, SNS[1]);
    await admin.getByTestId('row-action-capture').click();
    await admin.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('[data-testid="row-screenshot"]');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    expect(new URL(admin.url()).pathname).toBe('/user/device-management/index');
  });

  it('narrows the list with the IMEI filter, on the server', async () => {
    await ts.server.db.updateTable('devices').set({ imei: '356999001234567', manufacturer: 'Acme' }).where('sn', '=', SNS[1]).execute();
    await admin.goto(`${ts.server.url}/user/device-management/index`);
    await admin.getByTestId('device-total').getByText(`${SNS.length} devices`).waitFor();
    await admin.getByTestId('filter-imei').fill('9990012');
    await admin.getByTestId('device-total').getByText('1 device', { exact: true }).waitFor();
    expect(await admin.locator('tbody tr[data-sn]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-sn')))).toEqual([SNS[1]]);
    await admin.getByTestId('filter-imei').fill('no-such-imei');
    await admin.getByTestId('device-total').getByText('0 devices').waitFor();
  });

  it('asks before changing the SSH config from the list', async () => {
    await openRowMenu(admin, SNS[0]);
    await admin.getByTestId('row-action-ssh').click();
    await admin.getByTestId('ssh-apply').click();
    await admin.getByText(`Turn SSH off on ${SNS[0]}? Open SSH sessions to it will end.`).waitFor();
    expect(await admin.getByText(/^Done: /).count()).toBe(0);
    await admin.getByTestId('confirm-ssh').click();
    await admin.getByText(/^Done: /).first().waitFor();
  });

  it('asks before clearing the cache and before setting the whitelist, and sends only once confirmed', async () => {
    const done = admin.getByText('Done: cache cleared');
    await admin.goto(`${ts.server.url}/user/device-view/index?sn=${SNS[0]}&tab=remote`);
    await admin.getByTestId('device-online').getByText('Online').waitFor();
    await admin.getByTestId('remote-clear-cache').click();
    await admin.getByText(`Clear the cache of ${SNS[0]}?`).waitFor();
    await admin.getByRole('button', { name: 'Cancel' }).click();
    await admin.getByText(`Clear the cache of ${SNS[0]}?`).waitFor({ state: 'hidden' });
    expect(await done.count()).toBe(0);
    await admin.getByTestId('remote-clear-cache').click();
    await admin.getByTestId('confirm-remote').click();
    await done.waitFor();

    await admin.getByTestId('tab-whitelist').click();
    await admin.getByTestId('whitelist-input').fill('com.pos.payment，com.mdm.kiosk');
    await admin.getByRole('button', { name: 'Set whitelist' }).click();
    await admin.getByText(`Replace the whitelist of ${SNS[0]} with 2 package(s): com.pos.payment, com.mdm.kiosk?`).waitFor();
    expect(await admin.getByTestId('whitelist-current').count()).toBe(0);
    await admin.getByTestId('confirm-whitelist-set').click();
    await admin.getByTestId('whitelist-current').getByText('com.mdm.kiosk', { exact: true }).waitFor();
    await admin.screenshot({ path: path.join(shots, 'device-actions-confirm.png') });
  });
});
