import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { seededRandom } from '../../agent/simulator/prng.ts';
import { DEFAULT_TELEMETRY_PROFILE } from '../../agent/simulator/telemetry.ts';
import { createVirtualDevice, simulatedInfo } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, systemClock } from '../../protocol/index.ts';
import { readXlsx } from '../../server/reports/export.ts';
import { client } from '../support/console-api.ts';
import { consolePage } from '../support/console-page.ts';
import { shots } from '../support/shots.ts';

const FLEET = 30;
const GIB = 1024 ** 3;

describe('reports and dashboard in Chromium over a simulated fleet', () => {
  const c = consolePage();
  const devices: DeviceSession[] = [];
  let token: string;

  beforeAll(async () => {
    const random = seededRandom(11);
    for (let i = 0; i < FLEET; i++) {
      const d = createVirtualDevice({
        gatewayUrl: c.ts.server.deviceSocketUrl,
        sn: `E2E${String(i).padStart(4, '0')}`,
        enrollKey: c.ts.server.seeded.enrollKey,
        info: simulatedInfo(random),
        clock: systemClock,
        rebootDownMs: 1_000,
        transport: wsTransport(),
        // Only the events sent below: a random one arriving between a test's API read and its page read would
        // make their counts differ on a slow run (the simulator reports every 60 s).
        telemetry: { ...DEFAULT_TELEMETRY_PROFILE, abnormalChance: 0 },
      });
      devices.push(d);
      d.start();
    }
    await Promise.all(devices.map((d) => d.waitLoggedIn()));
    // A few events beyond what the simulator sends on its own, so the abnormal report is never empty.
    for (const d of devices.slice(0, 3)) {
      d.engine.send({ msgId: Command.StatusUpload, data: { cpu: 98, memUsed: 3.8 * GIB, memTotal: 4 * GIB } });
      d.engine.send({ msgId: Command.AbnormalEvent, data: { type: 'crash', cpu: 55, memUsed: 2 * GIB, memTotal: 4 * GIB, detail: 'com.example.pos' } });
    }
    token = await c.signInAsAdmin();
    const admin = client(c.ts, token);
    await vi.waitFor(async () => {
      const loc = await admin.ok<{ located: number }>('GET', '/report/location');
      const abn = await admin.ok<{ total: number }>('GET', '/report/abnormal');
      if (loc.located < FLEET || abn.total < 9) throw new Error('telemetry not stored yet');
    }, { timeout: 10_000 });
  });
  afterAll(() => {
    for (const d of devices) d.dispose();
  });

  const open = async (path: string) => {
    await c.page.goto(`${c.ts.server.url}/user${path}`);
  };
  const chartDrawn = async (testId: string) => {
    await c.page.getByTestId(testId).locator('canvas').first().waitFor();
  };

  it('the dashboard shows totals, the live online count, usage, top five and alerts', async () => {
    await open('/dashboard/index');
    await c.page.getByTestId('dashboard-total').getByText(String(FLEET)).waitFor();
    await c.page.getByTestId('dashboard-online').getByText(String(FLEET)).waitFor();
    await expect.poll(() => c.page.getByTestId('dashboard-top-five').locator('tbody tr').count()).toBe(5);
    await c.page.getByTestId('dashboard-alerts').getByText(devices[0]?.sn ?? '').waitFor();
    expect(await c.page.getByTestId('dashboard-memory').textContent()).toMatch(/^\d[\d.]* [KMGT]B \/ \d[\d.]* [KMGT]B$/);
    await chartDrawn('dashboard-locations');
    // Trends: the last 24 hours by hour, or the whole week.
    await chartDrawn('dashboard-trend-online');
    await chartDrawn('dashboard-trend-abnormal');
    expect(await c.page.getByTestId('dashboard-trend-online').getAttribute('data-points')).toBe('24');
    await c.page.getByTestId('dashboard-trend-span').getByText('Last 7 days').click();
    await expect.poll(() => c.page.getByTestId('dashboard-trend-online').getAttribute('data-points')).toBe('168');
    await shots(c.page, 'dashboard-fleet', 'en');
    // The live count follows presence: a device leaving drops it without reloading.
    devices[FLEET - 1]?.stop();
    await c.page.getByTestId('dashboard-online').getByText(String(FLEET - 1)).waitFor();
    devices[FLEET - 1]?.start();
    await devices[FLEET - 1]?.waitLoggedIn();
  });

  it('multi-model analysis draws both charts and one table row per model', async () => {
    await open('/statistical-report/multi-model-analysis');
    await chartDrawn('chart-online-rate');
    await chartDrawn('chart-ages');
    // An online rate is a percentage: its axis runs from 0 to at most 100.
    const rateAxis = c.page.getByTestId('chart-online-rate');
    await expect.poll(() => rateAxis.getAttribute('data-y-min')).toBe('0');
    expect(Number(await rateAxis.getAttribute('data-y-max'))).toBeLessThanOrEqual(100);
    const api = await client(c.ts, token).ok<{ models: { model: string }[] }>('GET', '/report/multi-model');
    await expect.poll(() => c.page.getByTestId('report-table').locator('tbody tr').count()).toBe(api.models.length);
  });

  it('device locations shows coverage, the country chart and the map; the map page clusters all devices', async () => {
    await open('/statistical-report/device-location-statistics');
    await chartDrawn('chart-countries');
    await c.page.getByTestId('located').getByText(String(FLEET)).waitFor();
    await expect.poll(() => c.page.getByTestId('map-countries').locator('path').count()).toBeGreaterThan(150);
    await expect.poll(() => c.page.getByTestId('map-points').locator('circle').count()).toBeGreaterThan(0);
    await c.page.getByTestId('open-map').click();
    await c.page.waitForURL(/device-map-distribution$/);
    await c.page.getByTestId('map-summary').getByText(new RegExp(`^${FLEET} devices in \\d+ points$`)).waitFor();
    const pointsShown = async () => Number(/in (\d+) points/.exec((await c.page.getByTestId('map-summary').textContent()) ?? '')?.[1]);
    const world = await pointsShown();
    // The tags view keeps the location page alive: count this page's map only.
    expect(await c.page.locator('[data-testid=map-summary] ~ [data-testid=world-map] circle').count()).toBe(world);
    await c.page.getByLabel('Zoom in').click();
    await c.page.getByLabel('Zoom in').click();
    await c.page.getByLabel('Zoom in').click();
    // Finer cells split clusters, so at least as many points as at world level.
    await expect.poll(pointsShown).toBeGreaterThan(world);
  });

  it('abnormal statistics draws the charts and exports a CSV whose rows match the query', async () => {
    await open('/statistical-report/abnormal-statistics');
    await chartDrawn('chart-abnormal');
    await chartDrawn('chart-abnormal-types');
    const admin = client(c.ts, token);
    const all = await admin.ok<{ total: number; list: { sn: string; type: string }[] }>('GET', '/report/abnormal?type=crash&pageSize=100');
    await c.page.getByTestId('abnormal-type').click();
    await c.page.getByRole('option', { name: 'Crash' }).click();
    await c.page.getByTestId('report-query').click();
    await c.page.getByTestId('abnormal-total').getByText(`${all.total} events`).waitFor();
    // The records are the shared table's, paged by the server: its total is the query's, its rows the first page.
    const table = c.page.getByTestId('report-table');
    await table.getByTestId('table-total').getByText(`${all.total} in all`).waitFor();
    expect(await table.locator('tbody tr[data-sn]').count()).toBe(Math.min(all.total, 10));
    const [download] = await Promise.all([c.page.waitForEvent('download'), c.page.getByTestId('export-csv').click()]);
    const file = await download.path();
    expect(download.suggestedFilename()).toMatch(/^abnormal-statistics-\d{8}\.csv$/);
    const lines = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('SN,Model,Type,Time,CPU (%),Memory (%),Detail');
    expect(lines.slice(1).map((l) => l.split(',')[0]).sort()).toEqual(all.list.map((r) => r.sn).sort());
    // Types by their names, not their codes.
    expect(lines.slice(1).every((l) => l.split(',')[2] === 'Crash')).toBe(true);
  });

  it('platform usage shows the admin session and exports XLSX matching the table', async () => {
    await open('/statistical-report/platform-usage-statistics');
    await chartDrawn('chart-usage');
    await expect.poll(() => c.page.getByTestId('chart-usage').getAttribute('data-y-min')).toBe('0');
    await c.page.getByTestId('report-table').getByText('admin', { exact: true }).waitFor();
    await c.page.getByTestId('report-org-table').locator('tbody tr[data-org]').first().waitFor();
    const [download] = await Promise.all([c.page.waitForEvent('download'), c.page.getByTestId('export-xlsx').click()]);
    expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
    const sheet = await readXlsx(fs.readFileSync(await download.path()));
    const api = await client(c.ts, token).ok<{ accounts: { account: string }[] }>('GET', '/report/usage');
    expect(sheet.slice(1).map((r) => r[0])).toEqual(api.accounts.map((a) => a.account));
    // One category per account and nothing beyond (a single account once stood left of 100 empty slots).
    expect(await c.page.getByTestId('chart-usage').getAttribute('data-x-max')).toBe(String(api.accounts.length - 0.5));
  });

  it('the system operation log lists recorded changes and exports them', async () => {
    await client(c.ts, token).ok('POST', '/permit/addRole', { name: 'e2e-report-role', summary: 'e2e', permissionList: ['report_manganer'] });
    await open('/statistical-report/system-operation-log');
    await c.page.getByTestId('report-table').getByText('Add role').first().waitFor();
    const [download] = await Promise.all([c.page.waitForEvent('download'), c.page.getByTestId('export-csv').click()]);
    const lines = fs.readFileSync(await download.path(), 'utf8').trim().split('\r\n');
    expect(lines.some((l) => l.includes('/permit/addRole'))).toBe(true);
  });

  it('zh: the dashboard trends switch span in Chinese; abnormal statistics filters and exports with Chinese names', async () => {
    await c.page.context().addCookies([{ name: 'language', value: 'zh', url: c.ts.server.url }]);
    try {
      await open('/dashboard/index');
      await c.page.getByTestId('dashboard-total').getByText(String(FLEET)).waitFor();
      await chartDrawn('dashboard-trend-online');
      await c.page.getByTestId('dashboard-trend-span').getByText('最近7天').click();
      await expect.poll(() => c.page.getByTestId('dashboard-trend-online').getAttribute('data-points')).toBe('168');
      await shots(c.page, 'dashboard-fleet', 'zh');

      await open('/statistical-report/abnormal-statistics');
      await chartDrawn('chart-abnormal');
      const all = await client(c.ts, token).ok<{ total: number }>('GET', '/report/abnormal?type=crash&pageSize=100');
      await c.page.getByTestId('abnormal-type').click();
      await c.page.getByRole('option', { name: '崩溃' }).click();
      await c.page.getByTestId('report-query').click();
      await c.page.getByTestId('abnormal-total').getByText(`共${all.total}条`).waitFor();
      const [download] = await Promise.all([c.page.waitForEvent('download'), c.page.getByTestId('export-csv').click()]);
      const lines = fs.readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '').trim().split('\r\n');
      expect(lines[0]).toBe('设备SN,型号,类型,时间,CPU(%),内存(%),详情');
      expect(lines.length - 1).toBe(all.total);
      expect(lines.slice(1).every((l) => l.split(',')[2] === '崩溃')).toBe(true);

      // Durations in Chinese units ("0 min" once stood in the Chinese table).
      await open('/statistical-report/platform-usage-statistics');
      await expect.poll(() => c.page.getByTestId('report-table').first().locator('tbody tr').first().innerText()).toMatch(/\d+ 分钟/);
    } finally {
      await c.page.context().clearCookies({ name: 'language' });
    }
  });
});
