import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { seededRandom } from '../../agent/simulator/prng.ts';
import { createVirtualDevice, simulatedInfo } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, systemClock } from '../../protocol/index.ts';
import { DASHBOARD_TREND_HOURS, type DashboardTrend } from '../../protocol/api/reports.ts';
import { readXlsx } from '../../server/reports/export.ts';
import { type Client, client, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();
const FLEET = 12;
const GIB = 1024 ** 3;

interface ModelRow {
  model: string;
  total: number;
  online: number;
  onlineRate: number;
  periodOnlineRate: number;
  versions: { version: string; count: number }[];
}
interface AbnormalPage {
  total: number;
  byType: { type: string; count: number }[];
  buckets: { key: string; start: number; end: number }[];
  series: { type: string; counts: number[] }[];
  list: { sn: string; type: string; time: number; cpu: number; memory: number; detail: string }[];
  thresholds: { cpu: number; memory: number };
}

async function download(ts: TestServer, token: string, url: string): Promise<{ status: number; type: string; body: Buffer; disposition: string }> {
  const res = await fetch(`${ts.server.url}${url}`, { headers: { 'X-Token': token } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', disposition: res.headers.get('content-disposition') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

/** Parses our CSV (BOM, CRLF, quoted cells) into rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.replace(/^\uFEFF/, '').split('\r\n')) {
    if (line === '') continue;
    const cells: string[] = [];
    let cur = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quoted) {
        if (ch === '"' && line[i + 1] === '"') {
          cur += '"';
          i++;
        } else if (ch === '"') quoted = false;
        else cur += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') {
        cells.push(cur);
        cur = '';
      } else cur += ch;
    }
    cells.push(cur);
    rows.push(cells);
  }
  return rows;
}

for (const target of targets) {
  describe.skipIf(!target.available)(`reports over simulated telemetry (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let token: string;
    let rootOrg: number;
    const devices: DeviceSession[] = [];

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      const login = await loginAsAdmin(ts);
      token = login.token;
      admin = client(ts, token);
      rootOrg = login.orgId;
      const random = seededRandom(7);
      for (let i = 0; i < FLEET; i++) {
        const d = createVirtualDevice({
          gatewayUrl: ts.server.deviceSocketUrl,
          sn: `RPT${target.name}${String(i).padStart(3, '0')}`,
          enrollKey: ts.server.seeded.enrollKey,
          info: simulatedInfo(random),
          clock: systemClock,
          rebootDownMs: 1_000,
          transport: wsTransport(),
          // One status at login and no more during the test: the assertions count exact samples.
          telemetry: { everyMs: 3_600_000, abnormalChance: 0, spikeChance: 0 },
        });
        devices.push(d);
        d.start();
      }
      await Promise.all(devices.map((d) => d.waitLoggedIn()));
    });
    afterAll(async () => {
      for (const d of devices) d.dispose();
      await ts?.stop();
    });

    it('counts devices by model with online rates and versions, matching the device list', async () => {
      const report = await vi.waitFor(async () => {
        const r = await admin.ok<{ models: ModelRow[]; series: { model: string; samples: number[] }[]; ages: { bucket: string; count: number }[] }>('GET', '/report/multi-model?period=DATE');
        const samples = r.series.reduce((n, s) => n + s.samples.reduce((a, b) => a + b, 0), 0);
        if (samples < FLEET) throw new Error(`only ${samples} samples so far`);
        return r;
      }, { timeout: 10_000 });
      const list = await admin.ok<{ total: number; list: { sn: string; model: string; imageVersion?: string }[] }>('POST', '/device/list', { pageNum: 1, pageSize: 100 });
      const byModel = new Map<string, number>();
      for (const d of list.list) byModel.set(d.model, (byModel.get(d.model) ?? 0) + 1);
      expect(report.models.reduce((n, m) => n + m.total, 0)).toBe(FLEET);
      for (const m of report.models) {
        expect(m.total).toBe(byModel.get(m.model));
        expect(m.online).toBe(m.total);
        expect(m.onlineRate).toBe(100);
        expect(m.versions.reduce((n, v) => n + v.count, 0)).toBe(m.total);
        // Each device reported within the current hour, so its hour counts as online.
        expect(m.periodOnlineRate).toBeGreaterThan(0);
      }
      // All devices enrolled just now: the whole fleet is in the "under 1 week" bucket.
      expect(report.ages).toContainEqual({ bucket: 'lt1w', count: FLEET });
    });

    it('places every device in a country and region, and clusters them on the map', async () => {
      const loc = await vi.waitFor(async () => {
        const r = await admin.ok<{ countries: { country: string; devices: number }[]; regions: { country: string; region: string; devices: number }[]; located: number; unlocated: number }>('GET', '/report/location');
        if (r.located < FLEET) throw new Error('not all located yet');
        return r;
      }, { timeout: 10_000 });
      expect(loc.unlocated).toBe(0);
      expect(loc.countries.reduce((n, c) => n + c.devices, 0)).toBe(FLEET);
      expect(loc.regions.reduce((n, c) => n + c.devices, 0)).toBe(FLEET);
      for (const c of loc.countries) expect(c.country).toMatch(/^[A-Z]{2}$/);
      const world = await admin.ok<{ points: { lat: number; lng: number; count: number }[]; devices: number }>('GET', '/report/map?level=0');
      const close = await admin.ok<{ points: { count: number; sn?: string }[]; devices: number }>('GET', '/report/map?level=6');
      expect(world.devices).toBe(FLEET);
      expect(close.devices).toBe(FLEET);
      expect(world.points.length).toBeLessThanOrEqual(close.points.length);
    });

    it('records threshold crossings and device events with CPU and memory, filters and exports them', async () => {
      const [a, b] = devices as [DeviceSession, DeviceSession];
      a.engine.send({ msgId: Command.StatusUpload, data: { cpu: 97.5, memUsed: 1 * GIB, memTotal: 4 * GIB } });
      // Staying above the threshold is one crossing, not two.
      a.engine.send({ msgId: Command.StatusUpload, data: { cpu: 96, memUsed: 1 * GIB, memTotal: 4 * GIB } });
      b.engine.send({ msgId: Command.AbnormalEvent, data: { type: 'crash', cpu: 40, memUsed: 3 * GIB, memTotal: 4 * GIB, detail: '=cmd|evil' } });
      const page = await vi.waitFor(async () => {
        const r = await admin.ok<AbnormalPage>('GET', '/report/abnormal?period=DATE&timeZone=Asia%2FShanghai&pageSize=100');
        if (r.total < 2) throw new Error('events not stored yet');
        return r;
      }, { timeout: 10_000 });
      expect(page.total).toBe(2);
      expect(page.thresholds).toEqual({ cpu: 90, memory: 90 });
      expect(page.byType.sort((x, y) => x.type.localeCompare(y.type))).toEqual([
        { type: 'cpu_high', count: 1 },
        { type: 'crash', count: 1 },
      ]);
      expect(page.series.reduce((n, s) => n + s.counts.reduce((x, y) => x + y, 0), 0)).toBe(page.total);
      const cpuHigh = page.list.find((r) => r.type === 'cpu_high');
      expect(cpuHigh).toMatchObject({ sn: a.sn, cpu: 97.5, memory: 25 });
      expect(page.list.find((r) => r.type === 'crash')).toMatchObject({ sn: b.sn, cpu: 40, memory: 75 });

      const filtered = await admin.ok<AbnormalPage>('GET', '/report/abnormal?type=crash');
      expect(filtered.list.map((r) => r.sn)).toEqual([b.sn]);
      const byCpu = await admin.ok<AbnormalPage>('GET', '/report/abnormal?cpuMin=90');
      expect(byCpu.list.map((r) => r.type)).toEqual(['cpu_high']);

      const csv = await download(ts, token, '/report/abnormal/export?format=csv&lang=2');
      expect(csv.status).toBe(200);
      expect(csv.type).toContain('text/csv');
      expect(csv.disposition).toMatch(/attachment; filename="abnormal-statistics-\d{8}\.csv"/);
      const rows = parseCsv(csv.body.toString('utf8'));
      expect(rows[0]).toEqual(['SN', 'Model', 'Type', 'Time', 'CPU (%)', 'Memory (%)', 'Detail']);
      expect(rows.slice(1).map((r) => r[0]).sort()).toEqual(page.list.map((r) => r.sn).sort());
      // Types by their names in the export's language; a detail that looks like a formula is neutralised.
      expect(rows.find((r) => r[2] === 'Crash')?.[6]).toBe("'=cmd|evil");

      const xlsx = await download(ts, token, '/report/abnormal/export?format=xlsx&lang=1&type=cpu_high');
      expect(xlsx.type).toContain('spreadsheetml');
      const sheet = await readXlsx(xlsx.body);
      expect(sheet[0]?.[0]).toBe('设备SN');
      expect(sheet.slice(1)).toEqual([[a.sn, expect.any(String), 'CPU过高', expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), 97.5, 25, '']]);
    });

    it('rejects invalid telemetry without storing it', async () => {
      const reply = await new Promise<number | undefined>((resolve) => {
        (devices[2] as DeviceSession).engine.request(Command.StatusUpload, { data: { cpu: 250, memUsed: 1, memTotal: 2 } }).subscribe({
          next: (e) => e.kind === 'result' && resolve(e.reply.result),
          error: () => resolve(undefined),
        });
      });
      expect(reply).toBe(1);
      const r = await admin.ok<AbnormalPage>('GET', '/report/abnormal?cpuMin=100');
      expect(r.total).toBe(0);
    });

    it('exports the multi-model and location tables with the rows the query shows', async () => {
      const report = await admin.ok<{ models: ModelRow[] }>('GET', '/report/multi-model');
      const csv = parseCsv((await download(ts, token, '/report/multi-model/export?format=csv')).body.toString('utf8'));
      expect(csv.slice(1).map((r) => [r[0], Number(r[1])])).toEqual(report.models.map((m) => [m.model, m.total]));
      const loc = await admin.ok<{ regions: { region: string; devices: number }[] }>('GET', '/report/location');
      const sheet = await readXlsx((await download(ts, token, '/report/location/export?format=xlsx')).body);
      expect(sheet.slice(1).map((r) => [r[1], r[2]])).toEqual(loc.regions.map((r) => [r.region, r.devices]));
    });

    it('counts sessions and active time per account and organisation', async () => {
      const usage = await admin.ok<{ accounts: { account: string; sessions: number; requests: number; activeMs: number }[]; organisations: { orgId: number; sessions: number }[] }>('GET', '/report/usage');
      const me = usage.accounts.find((a) => a.account === 'admin');
      expect(me?.sessions).toBeGreaterThanOrEqual(1);
      expect(me?.requests).toBeGreaterThan(3);
      expect(me?.activeMs).toBeGreaterThan(0);
      expect(usage.organisations.find((o) => o.orgId === rootOrg)?.sessions).toBeGreaterThanOrEqual(1);
    });

    it('serves the dashboard: totals, usage, top five and locations', async () => {
      const d = await admin.ok<{ totals: { devices: number; online: number; offline: number; abnormalToday: number }; usage: { reporting: number; memTotal: number }; topFive: { sn: string; cpu: number }[]; locations: { devices: number }[]; alerts: { sn: string }[] }>(
        'GET',
        '/report/dashboard?timeZone=Europe%2FLondon',
      );
      expect(d.totals).toMatchObject({ devices: FLEET, online: FLEET, offline: 0, abnormalToday: 2 });
      expect(d.usage.reporting).toBe(FLEET);
      expect(d.topFive).toHaveLength(5);
      expect(d.topFive[0]?.cpu).toBe(96);
      for (let i = 1; i < 5; i++) expect((d.topFive[i - 1]?.cpu ?? 0) >= (d.topFive[i]?.cpu ?? 0)).toBe(true);
      expect(d.locations.reduce((n, l) => n + l.devices, 0)).toBe(FLEET);
      expect(d.alerts.map((x) => x.sn)).toContain((devices[0] as DeviceSession).sn);
    });

    it('gives the dashboard a trend of seven days by hour, ending with this hour: devices online and abnormal events', async () => {
      const d = await admin.ok<{ trend: DashboardTrend }>('GET', '/report/dashboard');
      expect(d.trend.hours).toHaveLength(DASHBOARD_TREND_HOURS);
      expect(d.trend.online).toHaveLength(DASHBOARD_TREND_HOURS);
      const thisHour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
      // The last entry is this hour (or the one just ended, if the hour turned during the test).
      expect(thisHour - (d.trend.hours.at(-1) ?? 0)).toBeLessThanOrEqual(3_600_000);
      expect(d.trend.hours.every((h, i) => i === 0 || h - (d.trend.hours[i - 1] ?? 0) === 3_600_000)).toBe(true);
      // Every device reported status this hour; the two abnormal events of the test above are in it too.
      expect(d.trend.online.at(-1)).toBe(FLEET);
      expect(d.trend.abnormal.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
      // Another organisation's trend holds none of it.
      const roleId = await createRole(admin, `trend-${target.name}`, ['home_list']);
      await createOrg(admin, { name: `Trend ${target.name}`, account: `trend_${target.name}`, password: 'Trend_pw1', roleId });
      const other = client(ts, (await loginAs(ts, `trend_${target.name}`, 'Trend_pw1')).token);
      const theirs = await other.ok<{ trend: DashboardTrend }>('GET', '/report/dashboard');
      expect(theirs.trend.online.every((n) => n === 0)).toBe(true);
    });

    it('checks permission keys and organisation scope on every report', async () => {
      const roleId = await createRole(admin, `reporter-${target.name}`, ['report_manganer', 'report_abnormal', 'report_locationmap']);
      const orgId = await createOrg(admin, { name: `Branch ${target.name}`, account: `branch_${target.name}`, password: 'Branch_pw1', roleId });
      const branch = client(ts, (await loginAs(ts, `branch_${target.name}`, 'Branch_pw1')).token);
      // The branch holds no devices: its reports are empty, not the root's.
      const abnormal = await branch.ok<AbnormalPage>('GET', '/report/abnormal');
      expect(abnormal.total).toBe(0);
      const loc = await branch.ok<{ located: number }>('GET', '/report/location');
      expect(loc.located).toBe(0);
      expect((await branch.call('GET', '/report/multi-model')).code).toBe(40003);
      expect((await branch.call('GET', '/report/usage')).code).toBe(40003);
      expect((await branch.call('GET', `/report/abnormal?orgId=${rootOrg}`)).code).toBe(40003);
      expect((await admin.ok<AbnormalPage>('GET', `/report/abnormal?orgId=${orgId}`)).total).toBe(0);
      const res = await fetch(`${ts.server.url}/report/abnormal/export?format=csv`, { headers: { 'X-Token': 'nope' } });
      expect(((await res.json()) as { code: number }).code).toBe(3);
    });

    it('explains bad input', async () => {
      expect(await admin.call('GET', '/report/multi-model?period=DAY')).toMatchObject({ code: 40001, message: expect.stringContaining('Period') });
      expect(await admin.call('GET', '/report/multi-model?timeZone=Mars%2FOlympus')).toMatchObject({ code: 40001, message: "Unknown time zone 'Mars/Olympus'" });
      expect(await admin.call('GET', '/report/abnormal?startTime=2000&endTime=1000')).toMatchObject({ code: 40001, message: 'The end time must be after the start time' });
      expect(await admin.call('GET', '/report/abnormal/export')).toMatchObject({ code: 40001, message: expect.stringContaining('Format') });
    });
  });
}
