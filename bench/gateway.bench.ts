import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import WebSocket, { WebSocketServer } from 'ws';
import { wsTransport } from '../agent/ws-transport.ts';
import { Command, fileFromDevice, lastFileEvent, OnlineState, ProtocolEngine, Result, uploadToDevice } from '../protocol/index.ts';
import { loadConfig } from '../server/config.ts';
import { clientPasswordHash } from '../server/seed.ts';
import { type RunningServer, startServer } from '../server/server.ts';
import { raiseOpenFileLimit } from './gateway/file-limit.ts';
import { SwarmProcess } from './gateway/swarm-process.ts';
import type { BenchRow } from './table.ts';

// The sizes by default; each can be scaled down for a quick run (README, Benchmarks).
const env = process.env;
const WANTED_DEVICES = Number(env.BENCH_DEVICES ?? 50_000);
const RATES = String(env.BENCH_RATES ?? env.BENCH_RATE ?? '2000,5000').split(',').map(Number);
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const BROADCAST = Number(env.BENCH_BROADCAST ?? 10_000);
const RESTART = Number(env.BENCH_RESTART ?? 10_000);
const INGEST_SECONDS = Number(env.BENCH_INGEST_SECONDS ?? 5);
// Each device socket is a file descriptor in the server and one in the swarm; keep room for the database,
// the console socket and the runtime.
const FD_RESERVE = 1_000;
const PASSWORD = 'Bench_pass_1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * Sends `rate` requests per second for `seconds` and returns sorted latencies in ms. What is owed follows
 * the clock, not the tick count, so a late timer on a busy machine sends a bigger batch instead of
 * quietly lowering the rate.
 */
async function paced(rate: number, seconds: number, one: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  const start = performance.now();
  const end = start + seconds * 1_000;
  let sent = 0;
  for (let now = start; now < end; now = performance.now()) {
    for (const owed = Math.floor(((now - start) / 1_000) * rate); sent < owed; sent++) {
      const t0 = performance.now();
      inflight.push(one().then(() => void latencies.push(performance.now() - t0)));
    }
    await sleep(5);
  }
  await Promise.all(inflight);
  return latencies.sort((a, b) => a - b);
}

/** Baseline: a bare ws echo server and client in this process, at the same rate. */
async function bareWsEcho(rate: number, seconds: number): Promise<number[]> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws) => ws.on('message', (d: Buffer) => ws.send(d.toString())));
  await new Promise((r) => wss.once('listening', r));
  const port = (wss.address() as { port: number }).port;
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise((r) => ws.once('open', r));
  const waiting = new Map<string, () => void>();
  ws.on('message', (d: Buffer) => {
    const id = d.toString();
    waiting.get(id)?.();
    waiting.delete(id);
  });
  let n = 0;
  const latencies = await paced(rate, seconds, () => {
    const id = String(n++);
    return new Promise<void>((resolve) => {
      waiting.set(id, resolve);
      ws.send(id);
    });
  });
  ws.close();
  wss.close();
  return latencies;
}

/** Size of the file moved through the gateway: big enough for many windows, small enough for a quick run. */
const TRANSFER_BYTES = 8 * 1024 * 1024;

/** Baseline for transfers: the same bytes in 64 KiB frames over a bare ws connection, one way, no acknowledgements. */
async function bareWsBulk(total: number): Promise<number> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => wss.once('listening', r));
  const port = (wss.address() as { port: number }).port;
  const received = new Promise<void>((resolve) => {
    wss.on('connection', (ws) => {
      let got = 0;
      ws.on('message', (d: Buffer) => {
        got += d.length;
        if (got >= total) resolve();
      });
    });
  });
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise((r) => ws.once('open', r));
  const chunk = new Uint8Array(64 * 1024);
  const t0 = performance.now();
  for (let sent = 0; sent < total; sent += chunk.length) ws.send(chunk);
  await received;
  const mbs = total / 1e6 / ((performance.now() - t0) / 1_000);
  ws.close();
  wss.close();
  return mbs;
}

/** Polls `done` every 50 ms; false when `timeoutMs` passes first. */
async function waitFor(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    if (await done()) return true;
    await sleep(50);
  }
  return false;
}

/** Rows of `table`; for devices, only those online when `onlineOnly`. */
async function count(server: RunningServer, table: 'devices' | 'telemetry_samples', onlineOnly = false): Promise<number> {
  const q = onlineOnly
    ? server.db.selectFrom('devices').select((eb) => eb.fn.countAll<number>().as('n')).where('online_state', '=', OnlineState.Online)
    : server.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** Device logins this node has counted (dcc_device_logins_total, fresh per node). */
async function loginsOf(server: RunningServer): Promise<number> {
  const line = (await server.gateway.metrics.text()).split('\n').find((l) => l.startsWith('dcc_device_logins_total'));
  return Number(line?.split(' ')[1] ?? NaN);
}

function consoleOf(server: RunningServer, login: { token: string; id: number; org: { id: number } }): ProtocolEngine {
  return new ProtocolEngine({
    url: () => `${server.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.id}&orgId=${login.org.id}`,
    transport: wsTransport(),
  });
}

/**
 * Gateway at the sizes: devices held by one node and memory per connection, command round trips
 * at paced rates, a broadcast fan-out, status ingest, and a restart with every device coming back.
 */
export async function runGatewayBench(): Promise<BenchRow[]> {
  // Sockets are file descriptors: the node cannot hold more devices than its open-file limit allows.
  // prlimit raises it for this process and the swarm forked below when the hard limit permits (root
  // with CAP_SYS_RESOURCE, or `ulimit -Hn` high enough); otherwise the run is sized to the limit.
  const fdLimit = raiseOpenFileLimit(WANTED_DEVICES + FD_RESERVE);
  const devices = Math.min(WANTED_DEVICES, fdLimit - FD_RESERVE);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gw-'));
  const config = { DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD, SIM_DEVICES: '0', LOGIN_CAPTCHA: 'off' };
  let server = await startServer(loadConfig({ ...config, PORT: '0' }));
  const port = new URL(server.url).port;
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  // The simulator runs in its own process, as it would on other machines.
  const swarm = new SwarmProcess({ gatewayUrl: server.deviceSocketUrl, enrollKey: server.seeded.enrollKey, devices });
  const rows: BenchRow[] = [];
  try {
    const connectStart = performance.now();
    const allIn = await waitFor(() => server.gateway.deviceCount >= devices && !!devices, 600_000);
    const connectSeconds = (performance.now() - connectStart) / 1_000;
    if (!allIn) throw new Error(`only ${server.gateway.deviceCount} of ${devices} devices connected within 10 minutes`);
    await waitFor(async () => (await count(server, 'devices', true)) >= devices, 120_000);
    await sleep(2_000);
    globalThis.gc?.();
    const perConnection = (process.memoryUsage().rss - rssBefore) / devices;
    rows.push(
      {
        name: `devices held by one node (simulator forked, ${Math.max(2, Math.ceil(devices / 20_000))} loopback source addresses)`,
        value: server.gateway.deviceCount,
        unit: 'devices',
        target: devices < WANTED_DEVICES ? `${WANTED_DEVICES.toLocaleString('en-US')}; capped by the open-file limit ${fdLimit} (hard limit, prlimit refused)` : `${WANTED_DEVICES.toLocaleString('en-US')}`,
      },
      { name: `time for ${devices} devices to enrol and log in`, value: connectSeconds, unit: 's' },
      { name: 'server RSS per device connection (whole node: gateway, database, telemetry)', value: perConnection, unit: 'B', target: 'MeshCentral: 14,000 devices in 4 GB' },
    );

    const login = (await (
      await fetch(`${server.url}/login/userLogin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: clientPasswordHash(PASSWORD) }) })
    ).json() as { data: { token: string; id: number; org: { id: number } } }).data;
    const consoleEngine = consoleOf(server, login);
    consoleEngine.start();
    while ((await lastValueFrom(consoleEngine.request(Command.Heartbeat)).catch(() => undefined)) === undefined) await sleep(50);
    const width = Math.max(5, String(devices).length);
    const snOf = (k: number) => `SIM${String(k + 1).padStart(width, '0')}`;
    // Round trips cycle over the first 2,000 devices, warmed first: a simulated device builds its file tree
    // and app list on its first command, which is simulator cost, not gateway cost.
    const cycle = Math.min(devices, 2_000);
    let i = 0;
    const baseInfo = async () => void (await lastValueFrom(consoleEngine.request(Command.BaseInfo, { sn: snOf(i++ % cycle) })));
    await paced(1_000, cycle / 1_000, baseInfo);
    for (const rate of RATES) {
      const rtt = await paced(rate, SECONDS, baseInfo);
      const bare = await bareWsEcho(rate, SECONDS);
      rows.push(
        { name: `command round trip p50 at ${rate}/s (console -> gateway -> device -> back, ${rtt.length} cmds)`, value: percentile(rtt, 50), unit: 'ms', baseline: percentile(bare, 50), target: 'baseline: bare ws echo' },
        { name: `command round trip p99 at ${rate}/s`, value: percentile(rtt, 99), unit: 'ms', baseline: percentile(bare, 99), target: '< 10 ms at 5,000/s' },
      );
    }

    // Broadcast: one text pushed to every device of the set by the server, as a bulk action does; done
    // when the last device's reply is back.
    const fan = Math.min(BROADCAST, devices);
    let t0 = performance.now();
    const replies = await Promise.all(Array.from({ length: fan }, (_, k) => server.gateway.command(snOf(k), Command.PushText, { title: 'bench', text: 'broadcast' }, { timeoutMs: 60_000 })));
    const fanMs = performance.now() - t0;
    const fanOk = replies.filter((r) => r.result === Result.Success).length;
    rows.push({ name: `broadcast (push text) to ${fan} devices, until every reply is back (${fanOk} succeeded)`, value: fanMs, unit: 'ms', target: '< 1,000 ms for 10,000' });

    // Ingest: the swarm sends status uploads as fast as it can; the node has absorbed them once they are
    // rows in telemetry_samples (the ingest batches them).
    const samplesBefore = await count(server, 'telemetry_samples');
    t0 = performance.now();
    const blast = await swarm.next('blasted', { kind: 'blast', seconds: INGEST_SECONDS });
    await waitFor(async () => (await count(server, 'telemetry_samples')) - samplesBefore >= blast.sent, 120_000);
    const ingestSeconds = (performance.now() - t0) / 1_000;
    const absorbed = (await count(server, 'telemetry_samples')) - samplesBefore;
    rows.push({
      name: `status uploads absorbed (persisted as samples; ${absorbed} in ${ingestSeconds.toFixed(1)} s)`,
      value: absorbed / ingestSeconds,
      unit: 'msg/s',
      baseline: blast.sent / (blast.ms / 1_000),
      target: '>= 100,000/s; baseline: what the swarm process could send',
    });

    // File transfer through the gateway: chunks relayed unchanged on a flow, with acknowledgement windows.
    const bytes = new Uint8Array(TRANSFER_BYTES).map((_, k) => (k * 31) & 0xff);
    t0 = performance.now();
    await lastFileEvent(uploadToDevice(consoleEngine, { sn: snOf(0), dir: 'sdcard', name: 'bench.bin', bytes, timeoutMs: 120_000 }));
    const uploadMBs = TRANSFER_BYTES / 1e6 / ((performance.now() - t0) / 1_000);
    t0 = performance.now();
    await lastFileEvent(fileFromDevice(consoleEngine, { sn: snOf(0), msgId: Command.FileDownload, data: { path: 'sdcard/bench.bin' }, timeoutMs: 120_000 }));
    const downloadMBs = TRANSFER_BYTES / 1e6 / ((performance.now() - t0) / 1_000);
    consoleEngine.stop();
    const bareMBs = await bareWsBulk(TRANSFER_BYTES);
    rows.push(
      { name: `file upload through the gateway (${TRANSFER_BYTES / 1024 / 1024} MiB, SHA-256 checked)`, value: uploadMBs, unit: 'MB/s', baseline: bareMBs, target: 'baseline: bare ws, 64 KiB frames, no acks' },
      { name: `file download through the gateway (${TRANSFER_BYTES / 1024 / 1024} MiB)`, value: downloadMBs, unit: 'MB/s', baseline: bareMBs },
    );

    // Restart: keep RESTART devices, let the rest be marked offline, then the node dies and comes back
    // on the same port and database and every kept device reconnects (full-jitter backoff).
    const kept = (await swarm.next('kept', { kind: 'keep', count: Math.min(RESTART, devices) })).count;
    await waitFor(async () => server.gateway.deviceCount <= kept && (await count(server, 'devices', true)) <= kept, 120_000);
    await server.close();
    t0 = performance.now();
    server = await startServer(loadConfig({ ...config, PORT: port }));
    const listenMs = performance.now() - t0;
    const back = await waitFor(async () => (await loginsOf(server)) >= kept && (await count(server, 'devices', true)) >= kept, 180_000);
    const restartSeconds = (performance.now() - t0) / 1_000;
    await sleep(2_000); // late echoes (a device logging in twice) would show up here
    const logins = await loginsOf(server);
    const online = await count(server, 'devices', true);
    const enrolled = await count(server, 'devices');
    rows.push(
      { name: `${kept} devices back online after a node restart (from restart; node listening after ${(listenMs / 1000).toFixed(1)} s)${back ? '' : ' (NOT all back)'}`, value: restartSeconds, unit: 's', target: '< 60 s for 10,000' },
      { name: `after restart: logins / connections / online rows / device rows (want ${kept} / ${kept} / ${kept} / ${devices})`, value: logins, unit: `/ ${server.gateway.deviceCount} / ${online} / ${enrolled}`, target: 'no duplicate sessions' },
    );
    return rows;
  } finally {
    swarm.stop();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
