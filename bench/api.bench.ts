import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { currentOrgTree, loadOrgTree, subtreeOf } from '../server/accounts/org-scope.ts';
import { loadConfig } from '../server/config.ts';
import { clientPasswordHash } from '../server/seed.ts';
import { type RunningServer, startServer } from '../server/server.ts';
import { freshPgSchema, postgresReachable, TEST_PG_URL } from '../tests/support/databases.ts';
import type { LoadMessage, LoadOrder, LoadResult } from './api-load.worker.ts';
import { profiled } from './cpu-profile.ts';
import type { BenchRow } from './table.ts';

const ORGS = Number(process.env.BENCH_ORGS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PASSWORD = 'Bench_pass_1';
/**
 * Requests a second each of the 200 paced clients sends (BENCH_API_CLIENT_RATE): people paging a list,
 * not 200 loops firing the next request the moment the last one returns. A closed loop measures queueing:
 * at 200 connections its p99 is about 200 times the service time, on the bare server too.
 */
const CLIENT_RATE = Number(process.env.BENCH_API_CLIENT_RATE ?? 1);
/** BENCH_API_PROFILE=<dir> writes a CPU profile of the server's thread (this one) for each /org/list load at 200 clients. */
const PROFILE_DIR = process.env.BENCH_API_PROFILE;


async function seedOrganisations(server: RunningServer, count: number): Promise<void> {
  const root = await server.db.selectFrom('organisations').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const now = Date.now();
  for (let i = 0; i < count; i += 500) {
    const batch = Array.from({ length: Math.min(500, count - i) }, (_, k) => ({
      parent_id: root.id,
      name: `bench-org-${i + k}`,
      enroll_key: randomBytes(12).toString('hex'),
      created_at: now,
    }));
    await server.db.insertInto('organisations').values(batch).execute();
  }
}

/** A load's result with the server's CPU per request over its window. */
interface Measured extends LoadResult {
  /**
   * CPU time (user + system) of this thread, which runs the server alone while the load runs in a worker,
   * per request answered, in microseconds.
   */
  readonly cpuUs: number;
}

/** Runs one load order in a worker thread (bench/api-load.worker.ts) and measures this thread's CPU meanwhile. */
function inWorker(order: LoadOrder): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./api-load.worker.ts', import.meta.url), { workerData: order });
    let cpu0: NodeJS.CpuUsage | undefined;
    worker.on('message', (message: LoadMessage) => {
      if (message.type === 'started') cpu0 = process.threadCpuUsage();
      else {
        const cpu = process.threadCpuUsage(cpu0);
        resolve({ ...message.result, cpuUs: (cpu.user + cpu.system) / Math.max(1, message.result.requests) });
      }
    });
    worker.on('error', reject);
    worker.on('exit', (code) => code !== 0 && reject(new Error(`load worker exited with ${code}`)));
  });
}

function load(url: string, opts: { method: 'GET' | 'POST'; token: string; body?: unknown; connections: number }): Promise<Measured> {
  return inWorker({ kind: 'closed', url, method: opts.method, token: opts.token, body: opts.body, clients: opts.connections, ratePerClient: 0, seconds: SECONDS });
}

/** The paced open loop (bench/api-load.worker.ts says how it is paced and why not autocannon's rate). */
function pacedLoad(url: string, opts: { method: 'GET' | 'POST'; token: string; body?: unknown; clients: number; ratePerClient: number }): Promise<Measured> {
  return inWorker({ kind: 'paced', url, method: opts.method, token: opts.token, body: opts.body, clients: opts.clients, ratePerClient: opts.ratePerClient, seconds: SECONDS });
}

/**
 * The raw baseline: a bare node:http server answering a fixed envelope on loopback, loaded the same way in
 * the same run, so a table taken on a busy shared machine still says how far the API is from the floor.
 */
async function bareBaseline(connections: number, paced?: number): Promise<Measured> {
  const body = JSON.stringify({ code: 20000, data: 0, message: 'success' });
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const address = bare.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    const url = `http://127.0.0.1:${port}/`;
    return paced === undefined ? await load(url, { method: 'GET', token: 'x', connections }) : await pacedLoad(url, { method: 'GET', token: 'x', clients: connections, ratePerClient: paced });
  } finally {
    await new Promise((resolve) => bare.close(resolve));
  }
}

/** Calls per second of an async function run back to back for about `ms` milliseconds, after a warm-up. */
async function callsPerSecond(fn: () => Promise<unknown>, ms = 1_500): Promise<number> {
  for (let i = 0; i < 5; i++) await fn();
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await fn();
    calls++;
  }
  return (calls / (performance.now() - start)) * 1_000;
}

/**
 * Organisation scoping on its own, measured in the same run both ways: reading the whole tree and building
 * the scope on every request (what every request did before the cache), and the cached tree behind the
 * version check (what a request does now). The ratio survives a noisy machine better than the HTTP rows.
 */
async function scopeRows(label: string, server: RunningServer): Promise<BenchRow[]> {
  const root = await server.db.selectFrom('organisations').select('id').where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const fullRead = await callsPerSecond(async () => new Set(subtreeOf(await loadOrgTree(server.db), root.id)).size);
  const cached = await callsPerSecond(async () => (await currentOrgTree(server.db)).scopeOf(root.id).size);
  return [{ name: `caller scope over ${ORGS.toLocaleString('en-US')} orgs: cached tree vs full read per request [${label}]`, value: cached, unit: 'calls/s', baseline: fullRead }];
}

const LOGIN_ACCOUNTS = 100;
const LOGIN_CLIENTS = 10;

async function call<T>(server: RunningServer, url: string, token: string, body: unknown): Promise<T> {
  const res = await fetch(`${server.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-token': token }, body: JSON.stringify(body) });
  const env = (await res.json()) as { code: number; data: T; message: string };
  if (env.code !== 20000) throw new Error(`${url}: ${env.message}`);
  return env.data;
}

/**
 * Logins per second and p99 with LOGIN_CLIENTS concurrent clients. Logins are limited per client address
 * (30 a minute, whatever the account), so each client sends from its own loopback address (127.0.1.<n>)
 * and the load cycles through LOGIN_ACCOUNTS accounts, as many people logging in at once would; each
 * login is a full scrypt verification, which is the point of a slow hash.
 */
/** POSTs JSON from a given local address (fetch cannot choose one) and returns the parsed envelope. */
function postFrom(localAddress: string, url: string, body: unknown): Promise<{ code: number }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text) as { code: number });
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function loginLoad(server: RunningServer, adminToken: string): Promise<{ rps: number; p99: number; errors: number }> {
  const { id: roleId } = await call<{ id: number }>(server, '/permit/addRole', adminToken, { name: 'bench-login', summary: 'bench', permissionList: ['home_list'] });
  const accounts: string[] = [];
  for (let i = 0; i < LOGIN_ACCOUNTS; i++) {
    const account = `bench_login_${i}`;
    await call(server, '/permit/addAccount', adminToken, { account, password: clientPasswordHash(PASSWORD), roleId, nickname: account });
    accounts.push(account);
  }
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const end = performance.now() + SECONDS * 1_000;
  const client = async (_: unknown, i: number) => {
    const localAddress = `127.0.1.${i + 1}`;
    while (performance.now() < end) {
      const username = accounts[next++ % accounts.length] ?? '';
      const t0 = performance.now();
      const env = await postFrom(localAddress, `${server.url}/login/userLogin`, { username, password: clientPasswordHash(PASSWORD) });
      latencies.push(performance.now() - t0);
      if (env.code !== 20000) errors++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: LOGIN_CLIENTS }, client));
  const elapsed = (performance.now() - start) / 1_000;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? NaN, errors };
}

async function measure(label: string, server: RunningServer): Promise<BenchRow[]> {
  await seedOrganisations(server, ORGS);
  const login = (await (
    await fetch(`${server.url}/login/userLogin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: clientPasswordHash(PASSWORD) }) })
  ).json()) as { data: { token: string } };
  const token = login.data.token;
  const logins = await loginLoad(server, token);
  const bare10 = await bareBaseline(10);
  const list = await load(`${server.url}/org/list`, { method: 'POST', token, body: { pageNum: 1, pageSize: 10 }, connections: 10 });
  const bare200 = await bareBaseline(200);
  // The load: 200 clients on the organisation list, paced, and as a closed loop (saturation).
  const list200 = await profiled(PROFILE_DIR, `api-${label}-closed`, () => load(`${server.url}/org/list`, { method: 'POST', token, body: { pageNum: 1, pageSize: 10 }, connections: 200 }));
  const bareCalm = await bareBaseline(200, CLIENT_RATE);
  const listCalm = await profiled(PROFILE_DIR, `api-${label}-paced`, () => pacedLoad(`${server.url}/org/list`, { method: 'POST', token, body: { pageNum: 1, pageSize: 10 }, clients: 200, ratePerClient: CLIENT_RATE }));
  const unread = await load(`${server.url}/notice/unreadNoticeCount`, { method: 'GET', token, connections: 200 });
  return [
    { name: `/login/userLogin (scrypt), ${LOGIN_CLIENTS} clients over ${LOGIN_ACCOUNTS} accounts [${label}]`, value: logins.rps, unit: 'req/s', baseline: bare10.rps },
    { name: `/login/userLogin p99 [${label}]`, value: logins.p99, unit: 'ms', baseline: bare10.p99 },
    { name: `/org/list, ${ORGS.toLocaleString('en-US')} orgs, 10 clients [${label}]`, value: list.rps, unit: 'req/s', baseline: bare10.rps },
    { name: `/org/list p99 [${label}]`, value: list.p99, unit: 'ms', baseline: bare10.p99 },
    { name: `/org/list p99, ${ORGS.toLocaleString('en-US')} orgs, 200 clients at ${CLIENT_RATE} request/s each (${listCalm.rps.toFixed(0)} req/s) [${label}]`, value: listCalm.p99, unit: 'ms', baseline: bareCalm.p99, target: '< 50 ms' },
    { name: `server CPU per /org/list request, paced (bare: per bare request) [${label}]`, value: listCalm.cpuUs, unit: 'us', baseline: bareCalm.cpuUs, target: '< 1,000 us' },
    { name: `server CPU per /org/list request, closed loop [${label}]`, value: list200.cpuUs, unit: 'us', baseline: bare200.cpuUs },
    { name: `/org/list, 200 clients in a closed loop (saturated) [${label}]`, value: list200.rps, unit: 'req/s', baseline: bare200.rps },
    { name: `/org/list p99, 200 clients in a closed loop (queueing: see the bare server's) [${label}]`, value: list200.p99, unit: 'ms', baseline: bare200.p99 },
    { name: `/notice/unreadNoticeCount, 200 clients [${label}]`, value: unread.rps, unit: 'req/s', baseline: bare200.rps },
    { name: `/notice/unreadNoticeCount p99 [${label}]`, value: unread.p99, unit: 'ms', baseline: bare200.p99 },
    { name: `errors or non-2xx answers [${label}]`, value: list.errors + list200.errors + listCalm.errors + unread.errors + logins.errors, unit: '' },
    ...(await scopeRows(label, server)),
  ];
}

/** API throughput and p99 on the embedded database and, when reachable, PostgreSQL (autocannon on loopback). */
export async function runApiBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // BENCH_API_DB=sqlite or postgres runs one database only.
  const only = process.env.BENCH_API_DB;
  const targets: { label: string; databaseUrl?: string }[] = only === 'postgres' ? [] : [{ label: 'sqlite' }];
  if (only !== 'sqlite' && (await postgresReachable())) targets.push({ label: 'postgres', databaseUrl: TEST_PG_URL });
  for (const target of targets) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-'));
    const schema = target.databaseUrl ? await freshPgSchema() : undefined;
    const server = await startServer(
      loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD, SIM_DEVICES: '0', LOGIN_CAPTCHA: 'off', ...(target.databaseUrl ? { DATABASE_URL: target.databaseUrl } : {}) }),
      { pgSchema: schema?.schema },
    );
    try {
      rows.push(...(await measure(target.label, server)));
    } finally {
      await server.close();
      await schema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}
