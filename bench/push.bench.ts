import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Command, OnlineState, PushResult, Result } from '../protocol/index.ts';
import { loadConfig } from '../server/config.ts';
import type { Db } from '../server/db/database.ts';
import { type RunningServer, startServer } from '../server/server.ts';
import { freshPgSchema, postgresReachable, TEST_PG_URL } from '../tests/support/databases.ts';
import { api, loginAsAdmin, TEST_ADMIN_PASSWORD } from '../tests/support/server.ts';
import { profiled } from './cpu-profile.ts';
import type { BenchRow } from './table.ts';

// Issue 8: a 10,000-device campaign, simulated download time off; BENCH_PUSH_DEVICES shrinks it for a quick run.
const DEVICES = Number(process.env.BENCH_PUSH_DEVICES ?? 10_000);
const FLEET_TIMEOUT_MS = 180_000;
const CAMPAIGN_TIMEOUT_MS = Number(process.env.BENCH_PUSH_TIMEOUT_S ?? 180) * 1_000;

// BENCH_PUSH_DB=sqlite|postgres runs one database only; BENCH_PUSH_PROFILE=<dir> writes a CPU profile of this
// process (server and bench) for the campaign alone, from POST /push/start to the last final state.
const ONLY_DB = process.env.BENCH_PUSH_DB;
const PROFILE_DIR = process.env.BENCH_PUSH_PROFILE;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/**
 * Counts the statements the server sends to the database that write campaign tables (push_*), and all
 * statements, by wrapping Kysely's executor (transactions share its prototype). Telemetry and logins of
 * the fleet also write, so only push_* writes are charged to the campaign. Rows are counted too (affected
 * rows, or the rows RETURNING gave back): batching lowers statements, not the rows each one changes.
 */
function countStatements(db: Db): { writes: number; rows: number; queries: number; restore: () => void } {
  let proto: object | null = Object.getPrototypeOf(db.getExecutor()) as object | null;
  while (proto && !Object.prototype.hasOwnProperty.call(proto, 'executeQuery')) proto = Object.getPrototypeOf(proto) as object | null;
  if (!proto) throw new Error('Kysely executor has no executeQuery');
  const target = proto as { executeQuery: (q: { sql: string }, ...rest: unknown[]) => Promise<unknown> };
  const original = target.executeQuery;
  const counter = {
    writes: 0,
    rows: 0,
    queries: 0,
    restore: () => {
      target.executeQuery = original;
    },
  };
  target.executeQuery = function (this: unknown, q, ...rest) {
    counter.queries++;
    // Batched progress is one `WITH v(...) AS (VALUES ...) UPDATE push_targets ...`: counted as a write too.
    if (!/^\s*(with\s[\s\S]*?\)\s*)?(insert\s+into|update|delete\s+from)\s+"?push_/i.test(q.sql)) return original.call(this, q, ...rest);
    counter.writes++;
    return original.call(this, q, ...rest).then((result) => {
      const r = result as { numAffectedRows?: bigint; rows?: unknown[] };
      counter.rows += r.numAffectedRows !== undefined ? Number(r.numAffectedRows) : (r.rows?.length ?? 0);
      return result;
    });
  };
  return counter;
}

interface StreamWatch {
  /** Target updates received per whole second since the watch began. */
  readonly perSecond: number[];
  events: number;
  readonly firstSeen: Map<string, number>;
  readonly finalSeen: Map<string, number>;
  readonly done: Promise<void>;
  close(): void;
}

/**
 * Reads /push-log/stream as the console does (src/api/content.ts followPushes: same route, header and
 * newline-delimited JSON), timing every device's first and final update. node:http rather than fetch so
 * that close() surely drops the connection (the server's close waits for open streams).
 */
async function watchStream(url: string, token: string, campaignId: number | undefined, t0: () => number, expect: number): Promise<StreamWatch> {
  let finished = () => {};
  const req = http.get(`${url}/push-log/stream${campaignId ? `?campaignId=${campaignId}` : ''}`, { headers: { 'X-Token': token } });
  const watch: StreamWatch = {
    perSecond: [],
    events: 0,
    firstSeen: new Map(),
    finalSeen: new Map(),
    done: new Promise<void>((r) => (finished = r)),
    close: () => req.destroy(),
  };
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
  if (res.statusCode !== 200) throw new Error(`push stream refused: HTTP ${res.statusCode ?? '?'}`);
  res.setEncoding('utf8');
  res.on('error', () => undefined);
  let buffer = '';
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const event = JSON.parse(buffer.slice(0, nl)) as { type: string; sn?: string; pushResult?: number };
      buffer = buffer.slice(nl + 1);
      if (event.type !== 'target' || !event.sn) continue;
      const at = t0();
      if (at < 0) continue;
      watch.events++;
      const second = Math.floor(at / 1_000);
      watch.perSecond[second] = (watch.perSecond[second] ?? 0) + 1;
      if (!watch.firstSeen.has(event.sn)) watch.firstSeen.set(event.sn, at);
      if (event.pushResult !== PushResult.Pushing && !watch.finalSeen.has(event.sn)) {
        watch.finalSeen.set(event.sn, at);
        if (watch.finalSeen.size >= expect) finished();
      }
    }
  });
  return watch;
}

/**
 * The raw baseline, measured on the same server and fleet right after the campaign: every device sent one
 * bare command (BaseInfo) through the gateway and answered, with the runner's window of 2,000 in flight, no
 * database and no stream. Dispatch cannot beat this; the ratio is what the campaign's bookkeeping costs.
 */
async function bareRoundTrips(server: RunningServer, sns: readonly string[], window = 2_000): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  let failed = 0;
  const lane = async () => {
    while (next < sns.length) {
      const sn = sns[next++] ?? '';
      if ((await server.gateway.command(sn, Command.BaseInfo, {})).result !== Result.Success) failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, sns.length) }, lane));
  if (failed > 0) throw new Error(`${failed} of ${sns.length} devices did not answer BaseInfo`);
  return (performance.now() - t0) / 1_000;
}

interface PushRun {
  readonly fleetSeconds: number;
  readonly startMs: number;
  readonly dispatchSeconds: number;
  readonly baselineSeconds: number;
  readonly accountedSeconds: number;
  readonly success: number;
  readonly failed: number;
  readonly writesPerDevice: number;
  readonly rowsPerDevice: number;
  readonly queriesPerDevice: number;
  readonly eventsPerDevice: number;
  readonly meanRate: number;
  readonly peakRate: number;
}

/** One campaign of DEVICES simulated devices (fleet in its own process) on one database. */
async function runCampaign(database: 'sqlite' | 'postgres'): Promise<PushRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-push-'));
  const pg = database === 'postgres' ? await freshPgSchema() : undefined;
  let server: RunningServer | undefined;
  let sim: ReturnType<typeof fork> | undefined;
  try {
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', ...(pg ? { DATABASE_URL: TEST_PG_URL } : {}) });
    server = await startServer(config, { pgSchema: pg?.schema });
    const ts = { server, config, stop: async () => {} };
    const log = (msg: string) => process.stderr.write(`  [push ${database}] ${msg}\n`);
    // The fleet runs in its own process, as it would on other machines; churn off, download time off.
    sim = fork(path.resolve(import.meta.dirname, '../agent/simulator-cli.ts'), [], {
      env: { ...process.env, GATEWAY_URL: server.deviceSocketUrl, ENROLL_KEY: server.seeded.enrollKey, SIM_DEVICES: String(DEVICES), SIM_CHURN_MS: '0', SIM_QUIET: '1', SIM_PUSH_STEP_MS: '0', SIM_PUSH_FAIL_RATE: '0', SIM_STATE_FILE: path.join(dataDir, 'sim.json') },
      stdio: 'ignore',
      // With BENCH_PUSH_PROFILE the fleet profiles its whole life too (cut it to the campaign's window by time).
      execArgv: PROFILE_DIR ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : process.execArgv,
    });
    const db = server.db;
    const fleetStart = performance.now();
    const online = async () => Number((await db.selectFrom('devices').select((eb) => eb.fn.countAll<number | string>().as('n')).where('online_state', '=', OnlineState.Online).executeTakeFirstOrThrow()).n);
    for (let n = 0; (n = await online()) < DEVICES; ) {
      if (performance.now() - fleetStart > FLEET_TIMEOUT_MS) throw new Error(`only ${n} of ${DEVICES} devices came online`);
      await sleep(500);
    }
    const fleetSeconds = (performance.now() - fleetStart) / 1_000;
    log(`${DEVICES} devices online after ${fleetSeconds.toFixed(1)} s`);
    // Let enrolment writes and first telemetry settle before the clock starts.
    await sleep(2_000);

    const { token, orgId } = await loginAsAdmin(ts);
    // A firmware image with no model or system type fits every simulated device; firmware is the heaviest
    // path (one coupon charged per device, exactly once). The bytes are never fetched: downloads are simulated.
    const now = Date.now();
    const item = await db
      .insertInto('content_items')
      .values({ kind: 'firmware', org_id: orgId, account_id: null, parent_id: null, name: 'bench-firmware', file_name: 'bench.img', size: 1_048_576, sha256: 'a'.repeat(64), item_type: 'system', version: '241020.10', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    // The campaign is the measurement, not its four-eyes approval: the organisation's push size is turned off
    // (by default a push to more than 100 devices waits for a second account, and would never start here).
    const policy = await api(server.url, 'POST', '/approval/policy', { token, body: { orgId, wipes: true, bulkOver: 20, campaignOver: 0, ttlMinutes: 1440 } });
    if (policy.code !== 20000) throw new Error(`approval policy refused: ${policy.message}`);
    const recharge = await api(server.url, 'POST', '/push-coupon/recharge', { token, body: { count: DEVICES } });
    if (recharge.code !== 20000) throw new Error(`recharge refused: ${recharge.message}`);
    const sns = (await db.selectFrom('devices').select('sn').where('online_state', '=', OnlineState.Online).orderBy('id').execute()).map((d) => d.sn);

    let startedAt = -1;
    const watch = await watchStream(server.url, token, undefined, () => (startedAt < 0 ? -1 : performance.now() - startedAt), DEVICES);
    const counter = countStatements(db);
    const serverUrl = server.url;
    try {
      const campaign = await profiled(PROFILE_DIR, `push-${database}`, async () => {
        startedAt = performance.now();
        const started = await api<{ campaign?: { id: number } }>(serverUrl, 'POST', '/push/start', { token, body: { kind: 'firmware', contentId: item.id, sns } });
        const startMs = performance.now() - startedAt;
        const campaignId = started.data.campaign?.id;
        if (!campaignId) throw new Error(`push refused: ${started.message}`);
        log(`campaign ${campaignId} created in ${startMs.toFixed(0)} ms`);
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), CAMPAIGN_TIMEOUT_MS)));
        const outcome = await Promise.race([watch.done.then(() => 'done' as const), timeout]);
        clearTimeout(timer);
        return { outcome, campaignId, startMs };
      });
      const { outcome, campaignId, startMs } = campaign;
      if (outcome === 'timeout') {
        const phases = await db.selectFrom('push_targets').select(['phase', (eb) => eb.fn.countAll<number | string>().as('n')]).where('campaign_id', '=', campaignId).groupBy('phase').execute();
        throw new Error(`after ${CAMPAIGN_TIMEOUT_MS / 1_000} s only ${watch.finalSeen.size} of ${DEVICES} devices reported a final state (rows by phase: ${JSON.stringify(phases)})`);
      }
      const accountedMs = Math.max(...watch.finalSeen.values());
      const dispatchMs = Math.max(...watch.firstSeen.values());
      // The stream is what consoles see; the database is the record: both must agree.
      const view = await api<{ success: number; failed: number; queued: number; pushing: number }>(server.url, 'GET', `/push/campaign/${campaignId}`, { token });
      if (view.data.success + view.data.failed !== DEVICES) throw new Error(`campaign view counts ${view.data.success} + ${view.data.failed} settled of ${DEVICES}`);
      const charged = await db.selectFrom('push_coupon_ledger').select((eb) => eb.fn.countAll<number | string>().as('n')).where('campaign_id', '=', campaignId).where('reason', '=', 'push').executeTakeFirstOrThrow();
      if (Number(charged.n) !== DEVICES) throw new Error(`${charged.n} coupons charged for ${DEVICES} devices`);
      const seconds = Array.from({ length: Math.ceil(accountedMs / 1_000) }, (_, i) => watch.perSecond[i] ?? 0);
      const baselineSeconds = await bareRoundTrips(server, sns);
      return {
        fleetSeconds,
        startMs,
        dispatchSeconds: dispatchMs / 1_000,
        baselineSeconds,
        accountedSeconds: accountedMs / 1_000,
        success: view.data.success,
        failed: view.data.failed,
        writesPerDevice: counter.writes / DEVICES,
        rowsPerDevice: counter.rows / DEVICES,
        queriesPerDevice: counter.queries / DEVICES,
        eventsPerDevice: watch.events / DEVICES,
        meanRate: watch.events / (accountedMs / 1_000),
        peakRate: Math.max(0, ...seconds),
      };
    } finally {
      counter.restore();
      watch.close();
    }
  } finally {
    if (sim) {
      const child = sim;
      const exited = new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await server?.close();
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Push campaigns: dispatch and completion of a DEVICES-device campaign, writes per device, console update rate. */
export async function runPushBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const databases = ((await postgresReachable()) ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)).filter((d) => !ONLY_DB || d === ONLY_DB);
  for (const database of databases) {
    const r = await runCampaign(database);
    const on = `${database}`;
    rows.push(
      { name: `${on}: ${DEVICES} simulated devices enrolled and online (separate process)`, value: r.fleetSeconds, unit: 's' },
      { name: `${on}: POST /push/start (checks, campaign and ${DEVICES} target rows persisted)`, value: r.startMs, unit: 'ms' },
      { name: `${on}: campaign dispatched (every device accepted PushFile, seen on the console stream; baseline: one bare command to every device, same window)`, value: r.dispatchSeconds, unit: 's', baseline: r.baselineSeconds, target: '< 2 s' },
      { name: `${on}: campaign fully accounted for (every device's final state on the stream)`, value: r.accountedSeconds, unit: 's', target: '< 30 s' },
      { name: `${on}: devices succeeded / failed`, value: r.success, unit: `ok / ${r.failed} failed` },
      { name: `${on}: database write statements per device (push_* tables)`, value: r.writesPerDevice, unit: 'writes' },
      { name: `${on}: database rows written per device (push_* tables, coupon ledger included)`, value: r.rowsPerDevice, unit: 'rows' },
      { name: `${on}: database statements per device (all, incl. reads)`, value: r.queriesPerDevice, unit: 'queries' },
      { name: `${on}: console stream updates per device`, value: r.eventsPerDevice, unit: 'updates' },
      { name: `${on}: console stream update rate, mean over the campaign`, value: r.meanRate, unit: 'updates/s' },
      { name: `${on}: console stream update rate, busiest second`, value: r.peakRate, unit: 'updates/s' },
    );
  }
  return rows;
}
