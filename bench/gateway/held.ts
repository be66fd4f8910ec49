import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { OnlineState } from '../../protocol/index.ts';
import { type BenchRow, printTable } from '../table.ts';
import { forkBare, replyOf } from './bare-fleet.ts';
import { sleep } from './bench-env.ts';
import { type FleetSwarm, measureBusyNode } from './busy-node.ts';
import { SwarmProcess, sourcesFor } from './swarm-process.ts';

// Devices held by one node: a node of several worker processes (GATEWAY_WORKERS) on the embedded
// database, and device swarms in their own processes, each on its own block of loopback source addresses. One
// process here may hold about 19,900 sockets (hard open-file limit 20,000, not raisable), so the node
// runs ceil(devices / 19,000) workers (two at least) and the fleet as many swarms.
//
// Baseline, same run: bare `ws` server processes holding the same number of idle connections from bare
// `ws` client processes, with the same split over processes and source addresses: the time they take to
// open (the raw ws accepts the hold time is held against), their CPU per 1,000 connections and their RSS.
//
// Alone: `npx node --expose-gc bench/gateway/held.ts` (BENCH_DEVICES, default 50,000).

/** Sockets per process, below the 19,900 the open-file limit allows, leaving room for files and pipes. */
const PER_PROCESS = 19_000;
const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSWORD = 'Bench_pass_1';
/** How long the fleet may take to be held entirely before the run gives up. */
const HOLD_TIMEOUT_MS = 15 * 60_000;

/** Resident memory of a process in bytes (VmRSS), 0 when it is gone. */
function rssOf(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
}
const rssSum = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + rssOf(pid), 0);

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms); 0 when gone. */
function cpuMsOf(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const rest = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(rest[11] ?? 0) + Number(rest[12] ?? 0)) * 10;
  } catch {
    return 0;
  }
}
const cpuSum = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);

/** Splits `total` into `parts` nearly equal whole shares. */
const split = (total: number, parts: number) => Array.from({ length: parts }, (_, k) => Math.floor(total / parts) + (k < total % parts ? 1 : 0));

/** Polls until `read` satisfies `done`; throws after `timeoutMs` with the last value. */
async function until<T>(what: string, read: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs = HOLD_TIMEOUT_MS): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    // A read that fails is asked again until the timeout, as a scrape would be: under a storm the node may
    // cut a /metrics request off ("other side closed"), which ended a 50,000-device run minutes in.
    let last: { readonly value: T } | { readonly error: unknown };
    try {
      last = { value: await read() };
    } catch (error) {
      last = { error };
    }
    if ('value' in last && done(last.value)) return last.value;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what} (last: ${'value' in last ? JSON.stringify(last.value) : String(last.error)})`);
    await sleep(250);
  }
}

/** The node under test: `server/main.ts` with GATEWAY_WORKERS, started as an operator would. */
async function startNode(workers: number, dataDir: string, port = 0): Promise<{ child: ChildProcess; url: string; enrollKey: string; output: () => string }> {
  // BENCH_CPU_PROF=<dir> profiles the node's primary and, as they inherit its flags, its workers.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, path.join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The busy phases' console sends up to 5,000 commands a second: past a session's command budget.
    env: { ...process.env, GATEWAY_WORKERS: String(workers), PORT: String(port), DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD, SIM_DEVICES: '0', LOGIN_CAPTCHA: 'off', CONSOLE_COMMAND_RATE: '0', NATS_URL: '', DATABASE_URL: '' },
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const lines = await until('the node to start', () => out, (o) => /Enrolment key[^:]*: \S+/.test(o) || child.exitCode !== null, 60_000);
  const url = /Console:\s+(http:\/\/\S+)\/user\//.exec(lines)?.[1];
  const enrollKey = /Enrolment key[^:]*: (\S+)/.exec(lines)?.[1];
  if (!url || !enrollKey) throw new Error(`the node did not start:\n${lines}`);
  return { child, url, enrollKey, output: () => out };
}

/** The node's /metrics: total devices connected, logins counted, and each worker's pid and devices. */
async function nodeFigures(url: string): Promise<{ devices: number; logins: number; workers: { pid: number; devices: number }[] }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const one = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  const workers = [...text.matchAll(/^dcc_worker_devices_connected\{worker="\d+",pid="(\d+)"\} (\d+)$/gm)].map((m) => ({ pid: Number(m[1]), devices: Number(m[2]) }));
  return { devices: one('dcc_devices_connected'), logins: one('dcc_device_logins_total'), workers };
}

const REFUSED = 'dcc_device_admissions_refused_total';
const WAITED = 'dcc_device_admissions_waited_total';

/** One counter or gauge of the node's /metrics (summed over its workers); NaN when absent. */
async function metricOf(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

function onlineInDb(dataDir: string): number {
  const db = new DatabaseSync(path.join(dataDir, 'control-center.sqlite'), { readOnly: true });
  try {
    return Number((db.prepare('select count(*) as n from devices where online_state = ?').get(OnlineState.Online) as { n: number }).n);
  } finally {
    db.close();
  }
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

interface OursResult {
  readonly workers: number;
  readonly swarms: number;
  readonly sources: number;
  readonly held: number;
  readonly logins: number;
  /** Device sockets the node answered 503 (admission rate or logins in flight) until every device was held. */
  readonly refused: number;
  /** Device sockets the node held for their turn (a place or the rate) before admitting them. */
  readonly waited: number;
  readonly perWorker: readonly number[];
  readonly holdMs: number;
  /** CPU used by the node (primary and workers) and by the swarms from the swarms' start to every device held. */
  readonly nodeCpuMs: number;
  /** Of nodeCpuMs, the primary's: the node's one writer of device logins. */
  readonly primaryCpuMs: number;
  readonly swarmCpuMs: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
  /** RSS after SETTLE_SECONDS more of holding the fleet, with only its statuses and heartbeats. */
  readonly rssSettled: number;
  /** Devices held when rssSettled was read. */
  readonly settledDevices: number;
  /** Workers the primary logged as exited (and re-forked) before the restart phase. */
  readonly workerExits: number;
  readonly restart: RestartResult | undefined;
  readonly busy: readonly BenchRow[];
}

/** The fleet coming back after the node of workers restarted on the same port and database. */
interface RestartResult {
  /** From the old node's exit to the new one answering /metrics. */
  readonly listenMs: number;
  /** From the old node's exit to every device held and online in the database. */
  readonly backMs: number;
  readonly held: number;
  /** Logins the new node counted: more than the fleet means devices that logged in twice on the way. */
  readonly logins: number;
  readonly online: number;
  /** Device sockets the new node answered 503 on the way. */
  readonly refused: number;
}

/**
 * BENCH_PHASES (the gateway bench's list) with `restart`, or unset: after the hold, the node stops
 * (SIGTERM: its workers close every socket with 1001) and starts again on the same port and database,
 * and every device reconnects with its secret (full-jitter backoff).
 */
const PHASES = process.env.BENCH_PHASES?.split(',');
const RESTART = PHASES === undefined || PHASES.includes('restart');
/**
 * `busy` (in BENCH_PHASES, or unset): after the hold and before the restart, the round-trip, broadcast and
 * ingest phases run against this node while it holds the whole fleet (bench/gateway/busy-node.ts); with
 * `rtt`, `broadcast` or `ingest` listed too, only those.
 */
const BUSY = PHASES === undefined || PHASES.includes('busy');
const BUSY_PHASES = new Set(['rtt', 'broadcast', 'ingest'].filter((p) => PHASES === undefined || !PHASES.some((q) => ['rtt', 'broadcast', 'ingest'].includes(q)) || PHASES.includes(p)));
/**
 * The fleet's devices, as in the single-process phases: light bench devices (bench/gateway/light-device.ts,
 * the same wire protocol, one full simulated device per swarm) unless BENCH_SWARM_DEVICE=full; speaking
 * msgpack as the agent offers first, unless BENCH_DEVICE_CODEC=json.
 */
/** Seconds of quiet holding before RSS is read a second time (BENCH_SETTLE_SECONDS). */
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 30);
const SWARM_DEVICE = process.env.BENCH_SWARM_DEVICE === 'full' ? 'full' : 'light';
const DEVICE_CODEC = process.env.BENCH_DEVICE_CODEC === 'json' ? 'json' : 'msgpack';

async function restartNode(node: { child: ChildProcess; url: string }, workers: number, dataDir: string, devices: number): Promise<{ node: Awaited<ReturnType<typeof startNode>>; result: RestartResult }> {
  const port = Number(new URL(node.url).port);
  await stopChild(node.child);
  const t0 = performance.now();
  const next = await startNode(workers, dataDir, port);
  await until('every worker up again', () => nodeFigures(next.url), (f) => f.workers.length === workers, 60_000);
  const listenMs = performance.now() - t0;
  await until('every device back', () => nodeFigures(next.url), (f) => f.devices === devices);
  await until('every device online in the database again', () => onlineInDb(dataDir), (n) => n === devices, 60_000);
  const backMs = performance.now() - t0;
  // Late echoes (a device logging in a second time) would show up here.
  await sleep(3_000);
  const after = await nodeFigures(next.url);
  const refused = await metricOf(next.url, REFUSED);
  return { node: next, result: { listenMs, backMs, held: after.devices, logins: after.logins, online: onlineInDb(dataDir), refused } };
}

async function measureOurs(devices: number): Promise<OursResult> {
  const swarmSizes = split(devices, Math.ceil(devices / PER_PROCESS));
  const workers = Math.max(2, swarmSizes.length);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-held-'));
  let node = await startNode(workers, dataDir);
  const swarms: SwarmProcess[] = [];
  try {
    const idle = await until('every worker up', () => nodeFigures(node.url), (f) => f.workers.length === workers, 60_000);
    const pids = [node.child.pid ?? 0, ...idle.workers.map((w) => w.pid)];
    const rssBefore = rssSum(pids);
    const nodeCpu0 = cpuSum(pids);
    const primaryCpu0 = cpuSum(pids.slice(0, 1));
    const t0 = performance.now();
    // Each swarm spreads its sockets over source addresses of its own block (127.2.x.y, 127.3.x.y, ...).
    swarmSizes.forEach((n, k) =>
      swarms.push(new SwarmProcess({ gatewayUrl: `${node.url.replace('http', 'ws')}/device/websocket`, enrollKey: node.enrollKey, devices: n, snPrefix: `H${k}`, firstSource: 2 + k, device: SWARM_DEVICE, codec: DEVICE_CODEC })),
    );
    await Promise.all(swarms.map((s) => s.next('ready')));
    const held = await until('every device held', () => nodeFigures(node.url), (f) => f.devices === devices);
    await until('every device online in the database', () => onlineInDb(dataDir), (n) => n === devices, 60_000);
    const holdMs = performance.now() - t0;
    const nodeCpuMs = cpuSum(pids) - nodeCpu0;
    const primaryCpuMs = cpuSum(pids.slice(0, 1)) - primaryCpu0;
    const refused = await metricOf(node.url, REFUSED);
    const waited = await metricOf(node.url, WAITED);
    // The swarms' CPU from their fork: starting up is part of it, and small next to the fleet's logins.
    const swarmCpuMs = cpuSum(swarms.map((s) => s.child.pid ?? 0));
    // Let the sockets settle (first status uploads, buffers) before reading memory.
    await sleep(3_000);
    const after = await nodeFigures(node.url);
    const rssAfter = rssSum(pids);
    // V8 gives back what a storm grew its heaps to only after its memory reducer sees a quiet spell.
    await sleep(SETTLE_SECONDS * 1_000);
    // Read with the workers running now: a worker that died meanwhile reads as 0 bytes, and its devices
    // went to the others or to its replacement (counted below, from the node's log).
    const settled = await nodeFigures(node.url);
    const rssSettled = rssSum([node.child.pid ?? 0, ...settled.workers.map((w) => w.pid)]);
    const fleet: FleetSwarm[] = swarms.map((s, k) => ({ process: s, devices: swarmSizes[k] ?? 0, snPrefix: `H${k}` }));
    const busy = BUSY
      ? await measureBusyNode({ url: node.url, password: PASSWORD, cpuMs: () => cpuSum(pids), metric: async (name) => metricOf(node.url, name) }, fleet, BUSY_PHASES)
      : [];
    // Before the restart, whose stop is on purpose: what the primary logged of workers that exited.
    const workerExits = node.output().split('\n').filter((line) => /^Worker \d+ \(pid \d+\) exited/.test(line)).length;
    let restart: RestartResult | undefined;
    if (RESTART) {
      const restarted = await restartNode(node, workers, dataDir, devices);
      node = restarted.node;
      restart = restarted.result;
    }
    return {
      workers,
      swarms: swarms.length,
      sources: swarmSizes.reduce((n, size) => n + sourcesFor(size), 0),
      held: after.devices,
      logins: after.logins,
      refused,
      waited,
      perWorker: held.workers.map((w) => w.devices),
      holdMs,
      nodeCpuMs,
      primaryCpuMs,
      swarmCpuMs,
      rssBefore,
      rssAfter,
      rssSettled,
      settledDevices: settled.devices,
      workerExits,
      restart,
      busy,
    };
  } finally {
    for (const s of swarms) await stopChild(s.child);
    await stopChild(node.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The bare ws baseline: servers holding as many idle connections as the fleet, opened by bare ws clients. */
interface BareResult {
  readonly rssBefore: number;
  readonly rssAfter: number;
  readonly held: number;
  /** From the clients' fork to every connection open: the raw ws accepts the hold time is compared with. */
  readonly connectMs: number;
  /** CPU of the bare servers and of the bare clients (from their fork) over that time. */
  readonly serverCpuMs: number;
  readonly clientCpuMs: number;
}

async function measureBare(devices: number, processes: number): Promise<BareResult> {
  const servers = Array.from({ length: processes }, () => forkBare('bare-server', {}));
  const clients: ChildProcess[] = [];
  try {
    const ports = await Promise.all(servers.map(async (s) => (await replyOf(s, 'listening')).port));
    await sleep(500);
    const pids = servers.map((s) => s.pid ?? 0);
    const rssBefore = rssSum(pids);
    const serverCpu0 = cpuSum(pids);
    const t0 = performance.now();
    split(devices, processes).forEach((n, k) =>
      clients.push(forkBare('bare-clients', { BARE_URL: `ws://127.0.0.1:${ports[k] ?? 0}`, BARE_COUNT: String(n), BARE_FIRST_SOURCE: String(2 + k) })),
    );
    const connected = await Promise.all(clients.map((c) => replyOf(c, 'connected')));
    const connectMs = performance.now() - t0;
    const serverCpuMs = cpuSum(pids) - serverCpu0;
    const clientCpuMs = cpuSum(clients.map((c) => c.pid ?? 0));
    await sleep(3_000);
    return { rssBefore, rssAfter: rssSum(pids), held: connected.reduce((n, c) => n + c.count, 0), connectMs, serverCpuMs, clientCpuMs };
  } finally {
    for (const c of clients) await stopChild(c);
    for (const s of servers) await stopChild(s);
  }
}

/** Devices one node holds, its memory per connection and the bare-ws baseline (the 50,000 by default). */
export async function measureHeldDevices(): Promise<BenchRow[]> {
  const devices = Number(process.env.BENCH_DEVICES ?? 50_000);
  const ours = await measureOurs(devices);
  const perConnection = (ours.rssAfter - ours.rssBefore) / ours.held;
  // Measured after ours, so the node's run starts on the same quiet machine each time.
  let bare: BareResult | undefined;
  try {
    bare = await measureBare(devices, ours.workers);
  } catch (err) {
    process.stderr.write(`bare ws baseline failed: ${String(err)}\n`);
  }
  /** A bare figure per 1,000 connections as a row's baseline, when the bare run held any. */
  const perThousandBare = (ms: number | undefined) => (bare && bare.held > 0 && ms !== undefined ? { baseline: ms / (bare.held / 1_000) } : {});
  const rows: BenchRow[] = [
    {
      name: `devices held by one node (${ours.workers} worker processes, ${ours.sources} loopback source addresses; per worker ${ours.perWorker.join(' / ')}; ${SWARM_DEVICE} bench devices speaking ${DEVICE_CODEC})`,
      value: ours.held,
      unit: 'devices',
      target: `>= 50,000; asked ${devices.toLocaleString('en-US')}`,
    },
    {
      name: `time to enrol and log in every device (swarm start to all online in the database and /metrics; baseline: bare ws clients opening as many connections to bare ws servers, ${ours.workers} processes each, from their fork to the last open)`,
      value: ours.holdMs / 1_000,
      unit: 's',
      ...(bare && bare.held > 0 ? { baseline: bare.connectMs / 1_000 } : {}),
      target: '< 15 s for 50,000; < 30 s for 100,000',
    },
    {
      name: 'node CPU (primary and workers, user + system) per 1,000 logins, swarm start to all held (baseline: the bare ws servers per 1,000 connections)',
      value: ours.nodeCpuMs / (ours.held / 1_000),
      unit: 'ms',
      ...perThousandBare(bare?.serverCpuMs),
    },
    {
      name: "  of which the primary's (the node's writer of device logins, in batched transactions)",
      value: ours.primaryCpuMs / (ours.held / 1_000),
      unit: 'ms',
    },
    {
      name: 'device swarm CPU (load generator, from its fork) per 1,000 logins (baseline: the bare ws clients per 1,000 connections)',
      value: ours.swarmCpuMs / (ours.held / 1_000),
      unit: 'ms',
      ...perThousandBare(bare?.clientCpuMs),
    },
    {
      name: 'device logins counted by the node (dcc_device_logins_total; more than held means failed or repeated logins)',
      value: ours.logins,
      unit: 'logins',
      baseline: ours.held,
      target: '= devices held',
    },
    {
      name: 'device sockets answered 503 until every device was held (admission rate or logins in flight; each is an attempt its device backs off from)',
      value: ours.refused,
      unit: 'sockets',
    },
    { name: 'device sockets held for their turn (a place among the logins in flight, or the rate) and then admitted', value: ours.waited, unit: 'sockets' },
    { name: 'server RSS, primary and workers, idle before the fleet', value: ours.rssBefore / 1e6, unit: 'MB' },
    { name: 'server RSS, primary and workers, holding the fleet', value: ours.rssAfter / 1e6, unit: 'MB' },
    ...ours.busy,
  ];
  const r = ours.restart;
  if (r) {
    rows.push(
      {
        name: `devices back online after a restart of the node of ${ours.workers} workers (from the old node's exit; listening after ${(r.listenMs / 1_000).toFixed(1)} s)`,
        value: r.backMs / 1_000,
        unit: 's',
      },
      {
        name: `after the restart: logins counted by the new node / devices held / online rows (want ${ours.held} each; logins above it are devices that logged in twice)`,
        value: r.logins,
        unit: `/ ${r.held} / ${r.online}`,
        target: 'no duplicate login',
      },
      { name: 'after the restart: device sockets answered 503 on the way back', value: r.refused, unit: 'sockets' },
    );
  }
  const bareBaseline = bare && bare.held > 0 ? { baseline: (bare.rssAfter - bare.rssBefore) / bare.held / 1024 } : {};
  rows.push(
    {
      name: `server RSS per device connection, 3 s after the last login (baseline: bare ws servers, ${ours.workers} processes, ${bare?.held.toLocaleString('en-US') ?? 'no'} idle connections, 3 s after the last)`,
      value: perConnection / 1024,
      unit: 'KB',
      ...bareBaseline,
      target: '<= 2x',
    },
    {
      name: `  the same after ${SETTLE_SECONDS} s more of holding the fleet (statuses and heartbeats only; ${ours.settledDevices.toLocaleString('en-US')} devices held then)`,
      value: (ours.rssSettled - ours.rssBefore) / ours.settledDevices / 1024,
      unit: 'KB',
      ...bareBaseline,
    },
    { name: 'worker processes that exited (and were re-forked) before the restart phase, from the node\'s log', value: ours.workerExits, unit: 'workers', target: '0' },
  );
  return rows;
}

if (import.meta.main) {
  printTable('Gateway: devices held by one node with worker processes', await measureHeldDevices());
  process.exit(0);
}
