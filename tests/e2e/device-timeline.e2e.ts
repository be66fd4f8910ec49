import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { Command } from '../../protocol/index.ts';
import { requireConsoleBuild } from '../support/browser.ts';
import { consolePage } from '../support/console-page.ts';
import { startTestFleet } from '../support/fleet.ts';
import { api } from '../support/server.ts';
import { shots } from '../support/shots.ts';

// Issue 22: the device view's Timeline tab lists every command that reached the device, with who sent
// it and by which route, and exports the period as CSV; in English and in Chinese.
describe('device view in Chromium: the device timeline tab', () => {
  requireConsoleBuild();
  const cp = consolePage();
  let fleet: Fleet;
  let sn = '';

  beforeAll(async () => {
    fleet = await startTestFleet(cp.ts, { count: 1 });
    sn = fleet.devices[0]?.sn ?? '';
  });
  afterAll(() => fleet?.stop());

  it('en: a REST command and a bulk command show with their route, and the CSV holds them', async () => {
    const token = await cp.signInAsAdmin();
    const { page } = cp;
    expect((await api(cp.ts.server.url, 'POST', '/device-ops/command', { token, body: { sn, msgId: Command.PushText, data: { text: 'hello' } } })).code).toBe(20000);
    expect((await api(cp.ts.server.url, 'POST', '/device-ops/bulk', { token, body: { sns: [sn], msgId: Command.PushText, data: { text: 'to all' } } })).code).toBe(20000);
    const table = page.getByTestId('timeline-table');
    // Entries are written a moment after the command ends: open the tab again until both show.
    await expect
      .poll(async () => {
        await page.goto(`${cp.ts.server.url}/user/device-view/index?sn=${sn}&tab=timeline`);
        await table.waitFor();
        return table.locator('tbody tr[data-source]').count();
      }, { timeout: 15_000 })
      .toBe(2);
    await table.locator('tr[data-source="bulk"]').getByText('Bulk action').waitFor();
    await table.locator('tr[data-source="rest"]').getByText('REST call').waitFor();
    expect(await table.locator('tr[data-source="rest"]').innerText()).toContain('Send message');
    await shots(page, 'timeline', 'en');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('timeline-export').click()]);
    const csv = fs.readFileSync(await download.path(), 'utf8');
    const lines = csv.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Time,Operator,Route,Command,Parameters,Result,Duration');
    expect(lines.slice(1).map((l) => l.split(',').slice(1, 4).join(','))).toEqual(['admin,Bulk action,Send message', 'admin,REST call,Send message']);
  });

  it('zh: the same tab in Chinese', async () => {
    await cp.signInAsAdmin();
    const { page } = cp;
    await page.context().addCookies([{ name: 'language', value: 'zh', url: cp.ts.server.url }]);
    await page.goto(`${cp.ts.server.url}/user/device-view/index?sn=${sn}&tab=timeline`);
    const table = page.getByTestId('timeline-table');
    await table.locator('tr[data-source="bulk"]').getByText('批量操作').waitFor();
    await page.getByTestId('tab-timeline').getByText('操作时间线').waitFor();
    expect(await table.innerText()).not.toMatch(/Bulk action|REST call|Send message|Success/);
    await shots(page, 'timeline', 'zh');
  });
});
