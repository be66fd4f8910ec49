import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import WebSocket, { WebSocketServer } from 'ws';
import { wsTransport } from '../agent/ws-transport.ts';
import { Command, fileFromDevice, lastFileEvent, ProtocolEngine, uploadToDevice } from '../protocol/index.ts';
import { loadConfig } from '../server/config.ts';
import { clientPasswordHash } from '../server/seed.ts';
import { startServer } from '../server/server.ts';
import type { BenchRow } from './table.ts';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 2_000);
const RATE = Number(process.env.BENCH_RATE ?? 2_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PASSWORD = 'Bench_pass_1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Sends `rate` requests per second for `seconds`, in 10 ms ticks, and returns sorted latencies in ms. */
async function paced(rate: number, seconds: number, one: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  const perTick = rate / 100;
  let owed = 0;
  const end = performance.now() + seconds * 1_000;
  while (performance.now() < end) {
    owed += perTick;
    for (; owed >= 1; owed--) {
      const t0 = performance.now();
      inflight.push(one().then(() => void latencies.push(performance.now() - t0)));
    }
    await sleep(10);
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

/** Gateway: devices held, memory per connection, and command round trips through gateway and simulator. */
export async function runGatewayBench(): Promise<BenchRow[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gw-'));
  const server = await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD, SIM_DEVICES: '0', LOGIN_CAPTCHA: 'off' }));
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  // The simulator runs in its own process, as it would on other machines.
  const sim = fork(path.resolve(import.meta.dirname, '../agent/simulator-cli.ts'), [], {
    env: { ...process.env, GATEWAY_URL: server.deviceSocketUrl, ENROLL_KEY: server.seeded.enrollKey, SIM_DEVICES: String(DEVICES), SIM_CHURN_MS: '0', SIM_QUIET: '1', SIM_STATE_FILE: path.join(dataDir, 'sim.json') },
    stdio: 'ignore',
  });
  try {
    const connectStart = performance.now();
    while (server.gateway.deviceCount < DEVICES) await sleep(100);
    const connectSeconds = (performance.now() - connectStart) / 1_000;
    await sleep(1_000);
    globalThis.gc?.();
    const perConnection = (process.memoryUsage().rss - rssBefore) / DEVICES;

    const login = await (
      await fetch(`${server.url}/login/userLogin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: clientPasswordHash(PASSWORD) }) })
    ).json() as { data: { token: string; id: number; org: { id: number } } };
    const consoleEngine = new ProtocolEngine({
      url: () => `${server.url.replace('http', 'ws')}/websocket?token=${login.data.token}&accountId=${login.data.id}&orgId=${login.data.org.id}`,
      transport: wsTransport(),
    });
    consoleEngine.start();
    while ((await lastValueFrom(consoleEngine.request(Command.Heartbeat)).catch(() => undefined)) === undefined) await sleep(50);
    const width = Math.max(5, String(DEVICES).length);
    let i = 0;
    const rtt = await paced(RATE, SECONDS, async () => {
      const sn = `SIM${String((i++ % DEVICES) + 1).padStart(width, '0')}`;
      await lastValueFrom(consoleEngine.request(Command.BaseInfo, { sn }));
    });
    // File transfer through the gateway: chunks relayed unchanged on a flow, with acknowledgement windows.
    const bytes = new Uint8Array(TRANSFER_BYTES).map((_, k) => (k * 31) & 0xff);
    const firstSn = `SIM${'1'.padStart(width, '0')}`;
    let t0 = performance.now();
    await lastFileEvent(uploadToDevice(consoleEngine, { sn: firstSn, dir: 'sdcard', name: 'bench.bin', bytes, timeoutMs: 120_000 }));
    const uploadMBs = TRANSFER_BYTES / 1e6 / ((performance.now() - t0) / 1_000);
    t0 = performance.now();
    await lastFileEvent(fileFromDevice(consoleEngine, { sn: firstSn, msgId: Command.FileDownload, data: { path: 'sdcard/bench.bin' }, timeoutMs: 120_000 }));
    const downloadMBs = TRANSFER_BYTES / 1e6 / ((performance.now() - t0) / 1_000);
    consoleEngine.stop();
    const bareMBs = await bareWsBulk(TRANSFER_BYTES);
    const bare = await bareWsEcho(RATE, SECONDS);
    return [
      { name: `devices held (simulator in a separate process)`, value: server.gateway.deviceCount, unit: 'devices' },
      { name: `time for ${DEVICES} devices to enrol and log in`, value: connectSeconds, unit: 's' },
      { name: 'server RSS per device connection', value: perConnection, unit: 'B', target: 'bare ws: about 8 KB' },
      { name: `command round trip p50 at ${RATE}/s (console -> gateway -> device -> back)`, value: percentile(rtt, 50), unit: 'ms', baseline: percentile(bare, 50), target: 'baseline: bare ws echo' },
      { name: `command round trip p99 at ${RATE}/s`, value: percentile(rtt, 99), unit: 'ms', baseline: percentile(bare, 99), target: '< 10 ms at 5,000/s' },
      { name: 'commands completed', value: rtt.length, unit: 'cmds' },
      { name: `file upload through the gateway (${TRANSFER_BYTES / 1024 / 1024} MiB, SHA-256 checked)`, value: uploadMBs, unit: 'MB/s', baseline: bareMBs, target: 'baseline: bare ws, 64 KiB frames, no acks' },
      { name: `file download through the gateway (${TRANSFER_BYTES / 1024 / 1024} MiB)`, value: downloadMBs, unit: 'MB/s', baseline: bareMBs },
    ];
  } finally {
    sim.kill('SIGTERM');
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
