import fs from 'node:fs';
import { sql } from 'kysely';
import os from 'node:os';
import path from 'node:path';
import { seededRandom } from '../agent/simulator/prng.ts';
import { SimulatedLoad, simulatedLocation } from '../agent/simulator/telemetry.ts';
import { AbnormalType, OnlineState, systemClock } from '../protocol/index.ts';
import { loadConfig } from '../server/config.ts';
import { HOUR_MS } from '../server/reports/periods.ts';
import { type RunningServer, startServer } from '../server/server.ts';
import { TelemetryIngest } from '../server/telemetry/ingest.ts';
import { freshPgSchema, postgresReachable, TEST_PG_URL } from '../tests/support/databases.ts';
import { loginAsAdmin, TEST_ADMIN_PASSWORD } from '../tests/support/server.ts';
import type { BenchRow } from './table.ts';

// 100,000 devices with 30 days of history, as issue 10 asks; BENCH_REPORT_DEVICES shrinks it for a quick run.
const DEVICES = Number(process.env.BENCH_REPORT_DEVICES ?? 100_000);
const DAYS = 30;
const ORGS = 50;
const ACCOUNTS = 500;
// Abnormal records per device over the 30 days: a few a week, like the simulator's 2 % per upload would give
// with threshold crossings collapsed.
const ABNORMAL_PER_DEVICE = 5;
const RUNS = Number(process.env.BENCH_REPORT_RUNS ?? 40);
const WARMUP = 3;
const ROWS_PER_INSERT = 400;
const MODELS = ['P8 Pro', 'P10', 'T2 Lite', 'K9 POS', 'M6 Tablet', 'L1 Gateway', 'L3 Kiosk'];
const DEVICE_EVENTS = [AbnormalType.Crash, AbnormalType.Anr, AbnormalType.Overheat, AbnormalType.LowStorage, AbnormalType.UnexpectedReboot, AbnormalType.CpuHigh, AbnormalType.MemoryHigh];

async function insertAll<T>(rows: T[], insert: (part: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insert(rows.slice(i, i + ROWS_PER_INSERT));
}

/**
 * Fills a fresh database with the fleet: organisations, devices, 30 days of hourly rollups (from a
 * per-device, per-hour online simulation), abnormal records and console sessions; then the current
 * hour's status and location uploads of every device go through the real ingestion path.
 */
async function generate(server: RunningServer): Promise<{ seconds: number; ingestSeconds: number; rows: Record<string, number> }> {
  const started = performance.now();
  const phase = (name: string) => process.stderr.write(`  ${name} at ${((performance.now() - started) / 1_000).toFixed(1)} s\n`);
  const db = server.db;
  const now = Date.now();
  const random = seededRandom(42);
  const root = await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const orgRows = Array.from({ length: ORGS }, (_, i) => ({ parent_id: root.id, name: `bench-report-org-${i}`, enroll_key: `k${i}-${now}`, created_at: now - 400 * 86_400_000 }));
  const orgIds = (await db.insertInto('organisations').values(orgRows).returning('id').execute()).map((r) => r.id);

  const devices = Array.from({ length: DEVICES }, (_, i) => {
    const model = MODELS[Math.floor(random() * MODELS.length)] as string;
    return {
      sn: `BR${String(i).padStart(7, '0')}`,
      org_id: orgIds[i % ORGS] as number,
      secret_hash: 'x',
      model,
      system_type: model.startsWith('L') ? 'linux' : 'android',
      system_version: 'Android 12',
      image_version: `2410${String(1 + Math.floor(random() * 28)).padStart(2, '0')}.00`,
      online_state: random() < 0.7 ? OnlineState.Online : OnlineState.Offline,
      created_at: now - Math.floor(random() * 500 * 86_400_000),
      // Each device's share of hours online, for the rollup below.
      uptime: 0.4 + random() * 0.6,
    };
  });
  await insertAll(devices, (part) => db.insertInto('devices').values(part.map(({ uptime: _u, ...d }) => d)).execute());

  phase('devices inserted');
  // 30 days of hourly rollups, per organisation and model, from a per-device Bernoulli draw per hour.
  // Typed arrays indexed by group and hour: 72 million draws, no per-draw allocation.
  const firstHour = Math.floor(now / HOUR_MS) * HOUR_MS - DAYS * 24 * HOUR_MS;
  const HOURS = DAYS * 24;
  const groupOf = (orgIndex: number, modelIndex: number) => orgIndex * MODELS.length + modelIndex;
  const deviceHours = new Uint32Array(ORGS * MODELS.length * HOURS);
  const orgIndex = new Map(orgIds.map((id, i) => [id, i]));
  for (const d of devices) {
    const base = groupOf(orgIndex.get(d.org_id) ?? 0, MODELS.indexOf(d.model)) * HOURS;
    for (let h = 0; h < HOURS; h++) if (random() < d.uptime) deviceHours[base + h] = (deviceHours[base + h] ?? 0) + 1;
  }
  const hourly: { org_id: number; model: string; hour: number; device_hours: number; samples: number; cpu_sum: number; mem_sum: number }[] = [];
  for (let o = 0; o < ORGS; o++) {
    for (let m = 0; m < MODELS.length; m++) {
      for (let h = 0; h < HOURS; h++) {
        const n = deviceHours[groupOf(o, m) * HOURS + h] ?? 0;
        if (n === 0) continue;
        // One status a minute while online, with a plausible mean load.
        hourly.push({ org_id: orgIds[o] as number, model: MODELS[m] as string, hour: firstHour + h * HOUR_MS, device_hours: n, samples: n * 60, cpu_sum: n * 60 * (20 + random() * 30), mem_sum: n * 60 * (40 + random() * 30) });
      }
    }
  }
  phase(`rollups computed (${hourly.length} rows)`);
  await insertAll(hourly, (part) => db.insertInto('telemetry_hourly').values(part).execute());

  phase('rollups inserted');
  const abnormal = Array.from({ length: DEVICES * ABNORMAL_PER_DEVICE }, (_, i) => {
    const d = devices[i % DEVICES] as (typeof devices)[number];
    return {
      sn: d.sn,
      org_id: d.org_id,
      model: d.model,
      type: DEVICE_EVENTS[Math.floor(random() * DEVICE_EVENTS.length)] as string,
      time: now - Math.floor(random() * DAYS * 86_400_000),
      cpu: Math.round(random() * 1000) / 10,
      memory: Math.round(random() * 1000) / 10,
      detail: '',
    };
  });
  await insertAll(abnormal, (part) => db.insertInto('abnormal_events').values(part).execute());
  // Their hourly counts, as the ingestion keeps them.
  const abnormalHourly = new Map<string, { org_id: number; type: string; hour: number; n: number }>();
  for (const a of abnormal) {
    const hour = Math.floor(a.time / HOUR_MS) * HOUR_MS;
    const key = `${a.org_id}|${a.type}|${hour}`;
    const row = abnormalHourly.get(key);
    if (row) row.n++;
    else abnormalHourly.set(key, { org_id: a.org_id, type: a.type, hour, n: 1 });
  }
  await insertAll([...abnormalHourly.values()], (part) => db.insertInto('abnormal_hourly').values(part).execute());

  phase('abnormal records inserted');
  const sessions = Array.from({ length: ACCOUNTS * DAYS }, (_, i) => {
    const start = now - Math.floor(random() * DAYS * 86_400_000);
    return {
      token_hash: `bench-${i}`,
      account_id: 10_000 + (i % ACCOUNTS),
      account: `user${i % ACCOUNTS}`,
      org_id: orgIds[i % ORGS] as number,
      started_at: start,
      last_active_at: start + Math.floor(random() * 4 * HOUR_MS),
      active_ms: Math.floor(random() * 2 * HOUR_MS),
      requests: Math.floor(random() * 500),
    };
  });
  await insertAll(sessions, (part) => db.insertInto('usage_sessions').values(part).execute());

  // The current hour through the real ingestion: every device's location and one status upload.
  const ingestStart = performance.now();
  const ingest = new TelemetryIngest({ db, clock: systemClock, settings: { sampleRetentionDays: 7, reportRetentionDays: 400, cpuThreshold: 90, memoryThreshold: 90, flushEveryMs: 1_000, flushAtSamples: Number.POSITIVE_INFINITY, sampleEveryMs: 10_000 } });
  for (const d of devices) {
    const r = seededRandom(d.sn.length + Number(d.sn.slice(2)));
    ingest.location({ sn: d.sn, orgId: d.org_id }, simulatedLocation(r));
    ingest.status({ sn: d.sn, orgId: d.org_id }, new SimulatedLoad(r).next(r() < 0.01));
  }
  await ingest.stop();
  const ingestSeconds = (performance.now() - ingestStart) / 1_000;
  return {
    seconds: (performance.now() - started) / 1_000,
    ingestSeconds,
    rows: { devices: devices.length, telemetry_hourly: hourly.length, abnormal_events: abnormal.length, abnormal_hourly: abnormalHourly.size, usage_sessions: sessions.length, device_telemetry: devices.length },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function measure(run: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < WARMUP; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

interface ReportTiming {
  readonly report: string;
  readonly p50: number;
  readonly p95: number;
}

async function benchOne(db: 'sqlite' | 'postgres'): Promise<{ timings: ReportTiming[]; baseline: { p50: number; p95: number }; gen: Awaited<ReturnType<typeof generate>> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-bench-reports-'));
  const pg = db === 'postgres' ? await freshPgSchema() : undefined;
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', ...(pg ? { DATABASE_URL: TEST_PG_URL } : {}) });
  const server = await startServer(config, { pgSchema: pg?.schema });
  try {
    process.stderr.write(`reports bench (${db}): generating ${DEVICES.toLocaleString('en-US')} devices x ${DAYS} days...\n`);
    const gen = await generate(server);
    process.stderr.write(`reports bench (${db}): data ready in ${gen.seconds.toFixed(1)} s ${JSON.stringify(gen.rows)}\n`);
    if (pg) {
      // PostgreSQL plans from statistics; a freshly bulk-loaded table has none until analysed.
      await sql`analyze`.execute(server.db);
    }
    const { token } = await loginAsAdmin({ server });
    const get = async (url: string) => {
      const res = await fetch(`${server.url}${url}`, { headers: { 'X-Token': token } });
      const body = (await res.json()) as { code: number; message: string };
      if (body.code !== 20000) throw new Error(`${url}: ${body.message}`);
      return body;
    };
    const tz = 'timeZone=Asia%2FShanghai';
    const reports: [string, string][] = [
      ['multi-model (30 days by DATE)', `/report/multi-model?period=DATE&${tz}`],
      ['multi-model (30 days by WEEK)', `/report/multi-model?period=WEEK&${tz}`],
      ['device locations', `/report/location?${tz}`],
      ['device map (world level)', `/report/map?level=0&${tz}`],
      ['device map (closest level)', `/report/map?level=6&${tz}`],
      ['abnormal (30 days by DATE, page 1)', `/report/abnormal?period=DATE&${tz}`],
      ['abnormal (type + CPU filter)', `/report/abnormal?type=crash&cpuMin=50&${tz}`],
      ['platform usage', `/report/usage?${tz}`],
      ['dashboard', `/report/dashboard?${tz}`],
    ];
    const timings: ReportTiming[] = [];
    for (const [report, url] of reports) timings.push({ report, ...(await measure(() => get(url))) });
    timings.push({ report: 'operation log (page 1)', ...(await measure(() => fetch(`${server.url}/operation-log/list`, { method: 'POST', headers: { 'X-Token': token, 'content-type': 'application/json' }, body: JSON.stringify({ pageNum: 1, pageSize: 10 }) }).then((r) => r.json()))) });
    // Raw baseline in the same run: one indexed count over the same device table, straight through Kysely.
    const baseline = await measure(() => server.db.selectFrom('devices').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst());
    return { timings, baseline, gen };
  } finally {
    await server.close();
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Report query latency over HTTP for a large fleet with 30 days of history, on SQLite and PostgreSQL. */
export async function runReportsBench(): Promise<BenchRow[]> {
  // BENCH_REPORT_DBS=postgres (or sqlite) measures one database only.
  const only = process.env.BENCH_REPORT_DBS;
  const targets: ('sqlite' | 'postgres')[] = only === 'postgres' ? [] : ['sqlite'];
  if (only !== 'sqlite' && (await postgresReachable())) targets.push('postgres');
  else if (only !== 'sqlite') process.stderr.write('reports bench: PostgreSQL is not reachable, measuring SQLite only\n');
  const results = new Map<string, Awaited<ReturnType<typeof benchOne>>>();
  for (const t of targets) results.set(t, await benchOne(t));

  const names = [...results.values()][0]?.timings.map((r) => r.report) ?? [];
  const ms = (n: number | undefined) => (n === undefined ? '' : `${n.toFixed(1)} ms`);
  const lines = [
    `### report query latency, ${DEVICES.toLocaleString('en-US')} devices, ${DAYS} days (${RUNS} sequential requests over HTTP each)`,
    '',
    '| report | SQLite p50 | SQLite p95 | PostgreSQL p50 | PostgreSQL p95 | target (PostgreSQL p95) |',
    '|---|---:|---:|---:|---:|---|',
    ...names.map((name) => {
      const s = results.get('sqlite')?.timings.find((r) => r.report === name);
      const p = results.get('postgres')?.timings.find((r) => r.report === name);
      const verdict = p ? (p.p95 < 500 ? '< 500 ms: met' : '< 500 ms: MISSED') : '';
      return `| ${name} | ${ms(s?.p50)} | ${ms(s?.p95)} | ${ms(p?.p50)} | ${ms(p?.p95)} | ${verdict} |`;
    }),
    `| baseline: bare count(*) over devices (Kysely, no HTTP) | ${ms(results.get('sqlite')?.baseline.p50)} | ${ms(results.get('sqlite')?.baseline.p95)} | ${ms(results.get('postgres')?.baseline.p50)} | ${ms(results.get('postgres')?.baseline.p95)} | |`,
    '',
    ...[...results.entries()].map(
      ([db, r]) => `${db}: data generated in ${r.gen.seconds.toFixed(1)} s (of which ${r.gen.ingestSeconds.toFixed(1)} s real ingestion of ${DEVICES.toLocaleString('en-US')} status + location uploads); rows ${JSON.stringify(r.gen.rows)}`,
    ),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const rows: BenchRow[] = [];
  for (const [db, r] of results) {
    for (const t of r.timings) rows.push({ name: `${db}: ${t.report} p95`, value: t.p95, unit: 'ms', baseline: r.baseline.p95, ...(db === 'postgres' ? { target: '< 500 ms' } : {}) });
  }
  return rows;
}
