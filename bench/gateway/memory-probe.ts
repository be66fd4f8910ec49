import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { WebSocketServer } from 'ws';
import { loadConfig } from '../../server/config.ts';
import { startServer } from '../../server/server.ts';
import { SwarmProcess } from './swarm-process.ts';

// What a held device costs the gateway's heap, against a bare ws server measured the same way: a
// single-process node (or, with PROBE_BARE=1, a bare WebSocketServer) in this process, one swarm of
// PROBE_DEVICES (4,000) light bench devices, a collection before and after, and the growth per device of
// RSS, heap and external memory. PROBE_SNAPSHOT=<file> writes a heap snapshot at the end (open it in
// DevTools' Memory panel). Run: npx node --expose-gc bench/gateway/memory-probe.ts
const env = process.env;
const N = Number(env.PROBE_DEVICES ?? 4_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const collect = () => {
  globalThis.gc?.();
  globalThis.gc?.();
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-probe-'));
const bare = env.PROBE_BARE === '1';
const wss = bare ? new WebSocketServer({ port: 0, host: '127.0.0.1' }) : undefined;
if (wss) await new Promise((r) => wss.once('listening', r));
const server = bare ? undefined : await startServer(loadConfig({ DATA_DIR: dataDir, ADMIN_PASSWORD: 'Probe_pass_1', SIM_DEVICES: '0', LOGIN_CAPTCHA: 'off', PORT: '0' }));
const url = wss ? `ws://127.0.0.1:${(wss.address() as { port: number }).port}/device/websocket` : String(server?.deviceSocketUrl);
const held = () => (wss ? wss.clients.size : (server?.gateway.deviceCount ?? 0));
await sleep(2_000);
collect();
const before = process.memoryUsage();
const swarm = new SwarmProcess({ gatewayUrl: url, enrollKey: server?.seeded.enrollKey ?? 'none', devices: N, codec: 'msgpack', device: 'light' });
// A bare server never answers the full device's login, so it may count one socket fewer.
while (held() < N - (bare ? 1 : 0)) await sleep(200);
await sleep(5_000);
collect();
const after = process.memoryUsage();
const per = (k: keyof NodeJS.MemoryUsage) => Math.round((after[k] - before[k]) / N);
process.stdout.write(`${bare ? 'bare ws server' : 'gateway'}, ${N} devices, per device: rss ${per('rss')} B, heapUsed ${per('heapUsed')} B, external ${per('external')} B\n`);
if (env.PROBE_SNAPSHOT) v8.writeHeapSnapshot(env.PROBE_SNAPSHOT);
swarm.stop();
await server?.close();
wss?.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
