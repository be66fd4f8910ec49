import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { WebSocketServer } from 'ws';
import { Command, OnlineState, Result } from '../protocol/index.ts';
import { loadConfig } from '../server/config.ts';
import { type RunningServer, startServer } from '../server/server.ts';
import { raiseOpenFileLimit } from './gateway/file-limit.ts';
import { measureHeldDevices } from './gateway/held.ts';
import { bareWsBroadcastMs, bareWsEchoServer, bareWsRelay, RELAY_DEVICE_SOCKETS } from './gateway/baselines.ts';
import { benchEnv, consoleSocketUrl, percentile, sleep } from './gateway/bench-env.ts';
import { BARE_SOURCE_BLOCK } from './gateway/busy-node.ts';
import { RoundTripClient } from './gateway/client-process.ts';
import { ForkedProcess } from './gateway/forked.ts';
import type { TransferReply, TransferRequest } from './gateway/transfer-messages.ts';
import { SwarmProcess } from './gateway/swarm-process.ts';
import type { BenchRow } from './table.ts';
import { profiled } from './cpu-profile.ts';

// The issue's sizes by default; each can be scaled down for a quick run (README, Benchmarks).
const env = process.env;
const WANTED_DEVICES = Number(env.BENCH_DEVICES ?? 50_000);
const { rates: RATES, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, broadcast: BROADCAST, ingestSeconds: INGEST_SECONDS, ingestBursts: INGEST_BURSTS } = benchEnv;
const RESTART = Number(env.BENCH_RESTART ?? 10_000);
// Device swarm processes: one sender process could not itself produce the ingest target rate.
const SWARMS = Math.max(1, Number(env.BENCH_SWARMS ?? 2));
// What the simulated devices speak: msgpack (offered first, as the agent may) or the spec's JSON.
const DEVICE_CODEC = env.BENCH_DEVICE_CODEC === 'json' ? 'json' : 'msgpack';
/**
 * The simulated devices of the single-process phases: 'light' (default), the bench's light device
 * (bench/gateway/light-device.ts: the same wire protocol, commands answered synchronously, no engine per
 * device), except each swarm's first device, a full simulated one for the transfer phase; 'full', the
 * simulator's full device everywhere, whose own scavenges were much of the round-trip tail (DECISIONS).
 */
const SWARM_DEVICE = env.BENCH_SWARM_DEVICE === 'full' ? 'full' : 'light';
const PHASES = new Set(String(env.BENCH_PHASES ?? 'held,busy,rtt,broadcast,ingest,transfer,restart').split(','));
// Each device socket is a file descriptor in the server and one in the swarm; keep room for the database,
// the console socket and the runtime.
const FD_RESERVE = 1_000;
const PASSWORD = 'Bench_pass_1';


/**
 * Samples what the gateway allocates during each measured round-trip window (BENCH_HEAP_SAMPLE=<dir>),
 * freed objects included; with BENCH_HEAP_SAMPLE_SURVIVORS=1 only what outlived a scavenge, which is what
 * a scavenge pause copies. Open the .heapprofile in Chrome DevTools' Memory panel.
 */
async function startAllocationSampling(): Promise<{ stop: (file: string) => Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !env.BENCH_HEAP_SAMPLE_SURVIVORS });
  return {
    stop: async (file) => {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** Size of the file moved through the gateway: big enough for many windows, small enough for a quick run. */
const TRANSFER_BYTES = 8 * 1024 * 1024;

/** Transfers measured, each direction and the baseline in turn; the median is printed (a shared machine is noisy). */
const TRANSFER_ROUNDS = Number(env.BENCH_TRANSFER_ROUNDS ?? 3);

/**
 * Baseline for transfers: a bare ws server in this process (where the gateway runs) that takes the same
 * bytes, sent in 64 KiB frames one way with no acknowledgements by the forked transfer client, and
 * answers one text frame once it has them all.
 */
async function bareWsSink(): Promise<{ url: string; close: () => void }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', maxPayload: 1024 * 1024 });
  wss.on('connection', (ws) => {
    let got = 0;
    ws.on('message', (d: Buffer) => {
      got += d.length;
      if (got >= TRANSFER_BYTES) ws.send('done');
    });
  });
  await new Promise((r) => wss.once('listening', r));
  return { url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, close: () => wss.close() };
}

const median = (xs: readonly number[]): number => percentile([...xs].sort((a, b) => a - b), 50);

/**
 * Linux scheduler figures of a process (/proc/<pid>/schedstat): ms on a CPU and ms runnable but waiting
 * for one. The wait is what a shared machine adds to latency; zeros where /proc is missing.
 */
function schedStat(pid: number | undefined): { onCpu: number; waiting: number } {
  try {
    const [onCpu = 0, waiting = 0] = fs.readFileSync(`/proc/${pid ?? 'self'}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return { onCpu: onCpu / 1e6, waiting: waiting / 1e6 };
  } catch {
    return { onCpu: 0, waiting: 0 };
  }
}

/**
 * CPU time (user and system, every thread: V8's collector works on helper threads too) a process has
 * used, in ms, from /proc/<pid>/stat; 0 where /proc is missing. Clock ticks of 10 ms: for spans of 100s of ms.
 */
function processCpuMs(pid: number | undefined): number {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(`/proc/${pid ?? 'self'}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / 100;
  } catch {
    return 0;
  }
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

/** A telemetry counter of this node's /metrics (dcc_telemetry_*_total). */
async function telemetryCount(server: RunningServer, name: 'absorbed' | 'samples_persisted'): Promise<number> {
  const line = (await server.gateway.metrics.text()).split('\n').find((l) => l.startsWith(`dcc_telemetry_${name}_total`));
  return Number(line?.split(' ')[1] ?? NaN);
}

/**
 * The forked device swarms, seen as one fleet. Devices are dealt round robin: device k is number
 * floor(k / n) + 1 of swarm k % n, each swarm with its own serial prefix and loopback source range.
 */
class Swarms {
  readonly all: SwarmProcess[];
  readonly #snOf: (k: number) => string;

  constructor(gatewayUrl: string, enrollKey: string, devices: number, count: number) {
    const share = (j: number) => Math.floor(devices / count) + (j < devices % count ? 1 : 0);
    const sourcesEach = Math.max(2, Math.ceil(share(0) / 20_000));
    const prefix = (j: number) => (count === 1 ? 'SIM' : `SIM${String.fromCharCode(65 + j)}`);
    this.all = Array.from({ length: count }, (_, j) => new SwarmProcess({ gatewayUrl, enrollKey, devices: share(j), snPrefix: prefix(j), firstSource: 2 + j * sourcesEach, codec: DEVICE_CODEC, device: SWARM_DEVICE }));
    const width = (j: number) => Math.max(5, String(share(j)).length);
    this.#snOf = (k) => `${prefix(k % count)}${String(Math.floor(k / count) + 1).padStart(width(k % count), '0')}`;
  }

  snOf(k: number): string {
    return this.#snOf(k);
  }

  /** Every swarm blasts status uploads at once; sent is the sum, ms the longest. */
  async blast(seconds: number, burst: number): Promise<{ sent: number; ms: number }> {
    const each = await Promise.all(this.all.map((s) => s.next('blasted', { kind: 'blast', seconds, burst })));
    return { sent: each.reduce((n, b) => n + b.sent, 0), ms: Math.max(...each.map((b) => b.ms)) };
  }

  /** Keeps the first `count` devices of the fleet (in dealing order) and drops the rest; returns how many are kept. */
  async keep(count: number): Promise<number> {
    const n = this.all.length;
    const kept = await Promise.all(this.all.map((s, j) => s.next('kept', { kind: 'keep', count: Math.floor(count / n) + (j < count % n ? 1 : 0) })));
    return kept.reduce((sum, k) => sum + k.count, 0);
  }

  stop(): void {
    for (const s of this.all) s.stop();
  }
}

/**
 * Gateway at the issue's sizes: devices held by one node and memory per connection, command round trips
 * at paced rates, a broadcast fan-out, status ingest, and a restart with every device coming back.
 * BENCH_PHASES (comma list of held, busy, rtt, broadcast, ingest, transfer, restart; default all) runs a subset.
 * `held` is the whole fleet on one node of worker processes (bench/gateway/held.ts), and `busy` the round
 * trips, broadcast and ingest against that node while it holds the fleet; the other phases run on a
 * single-process node holding as many devices as one process's open-file limit allows.
 */
export async function runGatewayBench(): Promise<BenchRow[]> {
  const held = PHASES.has('held') ? await measureHeldDevices() : [];
  const single = [...PHASES].some((p) => p !== 'held' && p !== 'busy') ? await runSingleProcessPhases() : [];
  return [...held, ...single];
}

async function runSingleProcessPhases(): Promise<BenchRow[]> {
  // Sockets are file descriptors: the node cannot hold more devices than its open-file limit allows.
  // prlimit raises it for this process and the swarms forked below when the hard limit permits (root
  // with CAP_SYS_RESOURCE, or `ulimit -Hn` high enough); otherwise the run is sized to the limit.
  const fdLimit = raiseOpenFileLimit(WANTED_DEVICES + FD_RESERVE);
  const devices = Math.min(WANTED_DEVICES, fdLimit - FD_RESERVE);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gw-'));
  // The round trips come from one console at up to 5,000 commands a second: past a session's command budget.
  const config = { DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD, SIM_DEVICES: '0', LOGIN_CAPTCHA: 'off', CONSOLE_COMMAND_RATE: '0' };
  let server = await startServer(loadConfig({ ...config, PORT: '0' }));
  const port = new URL(server.url).port;
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  // The simulator runs in its own processes, as it would on other machines; so does the measuring client.
  const swarms = new Swarms(server.deviceSocketUrl, server.seeded.enrollKey, devices, SWARMS);
  const client = new RoundTripClient();
  const bareServer = await bareWsEchoServer();
  const relayServer = PHASES.has('rtt') ? await bareWsRelay() : undefined;
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
    const sourcesEach = Math.max(2, Math.ceil(devices / SWARMS / 20_000));
    rows.push(
      {
        name: `devices held by one single-process node, the fleet of the phases below (simulator in ${SWARMS} forked processes, ${sourcesEach * SWARMS} loopback source addresses, devices speak ${DEVICE_CODEC}, ${SWARM_DEVICE === 'light' ? 'light bench devices answering synchronously (one full simulated device per swarm, for transfers)' : 'full simulated devices'})`,
        value: server.gateway.deviceCount,
        unit: 'devices',
        target: devices < WANTED_DEVICES ? `${WANTED_DEVICES.toLocaleString('en-US')}; capped by the open-file limit ${fdLimit} (hard limit, prlimit refused)` : `${WANTED_DEVICES.toLocaleString('en-US')}`,
      },
      { name: `time for ${devices} devices to enrol and log in`, value: connectSeconds, unit: 's' },
      { name: 'server RSS per device connection (whole node: gateway, database, telemetry)', value: perConnection, unit: 'B', target: 'MeshCentral: 14,000 devices in 4 GB' },
    );

    const consoleUrl = await consoleSocketUrl(server.url, PASSWORD);
    const snOf = (k: number) => swarms.snOf(k);

    if (PHASES.has('rtt')) {
      await client.next('connected', { kind: 'console', url: consoleUrl });
      await client.next('connected', { kind: 'bare', url: bareServer.url });
      if (relayServer) await client.next('connected', { kind: 'relay', url: relayServer.url });
      // Round trips cycle over 2,000 devices, warmed first: a simulated device builds its file tree and app
      // list on its first command, which is simulator cost, not gateway cost. With light devices the swarms'
      // first devices (full ones, kept for transfers) are left out, so every round trip meets a light device.
      const skip = SWARM_DEVICE === 'light' && devices > 2_000 + SWARMS ? SWARMS : 0;
      const sns = Array.from({ length: Math.min(devices - skip, 2_000) }, (_, k) => snOf(k + skip));
      await client.next('latencies', { kind: 'paced', over: 'console', rate: 1_000, seconds: sns.length / 1_000, sns });
      for (const rate of RATES) {
        const warmup = WARMUP_SECONDS > 0 ? await client.next('latencies', { kind: 'paced', over: 'console', rate, seconds: WARMUP_SECONDS, sns }) : undefined;
        // Server CPU (user + system, this process) per round trip: steadier than latency on a shared machine.
        // And the gateway's own event-loop delay: when it is small and round trips are slow, the time is
        // spent outside the gateway (the other processes, or waiting for a CPU on a shared machine).
        const loopDelay = monitorEventLoopDelay({ resolution: 1 });
        loopDelay.enable();
        const ours = [undefined, client.child.pid, ...swarms.all.map((s) => s.child.pid)];
        const schedBefore = ours.map(schedStat);
        let cpu = process.cpuUsage();
        const mainThread = process.threadCpuUsage();
        const sampler = env.BENCH_HEAP_SAMPLE ? await startAllocationSampling() : undefined;
        // BENCH_CPU_PROF=<dir>: the gateway's side of the measured window only (its CPU rows then include the profiler's).
        const rtt = await profiled(env.BENCH_CPU_PROF, `gateway-rtt-${rate}`, () => client.next('latencies', { kind: 'paced', over: 'console', rate, seconds: SECONDS, sns }));
        const rttCpu = process.cpuUsage(cpu);
        const rttMain = process.threadCpuUsage(mainThread);
        if (sampler) await sampler.stop(path.join(String(env.BENCH_HEAP_SAMPLE), `gateway-rtt-${rate}.heapprofile`));
        const sched = ours.map((pid, k) => {
          const after = schedStat(pid);
          return { onCpu: after.onCpu - (schedBefore[k]?.onCpu ?? 0), waiting: after.waiting - (schedBefore[k]?.waiting ?? 0) };
        });
        loopDelay.disable();
        cpu = process.cpuUsage();
        const bare = await client.next('latencies', { kind: 'paced', over: 'bare', rate, seconds: SECONDS, sns: [] });
        const bareCpu = process.cpuUsage(cpu);
        cpu = process.cpuUsage();
        const relay = await client.next('latencies', { kind: 'paced', over: 'relay', rate, seconds: SECONDS, sns: [] });
        const relayCpu = process.cpuUsage(cpu);
        const perMessage = (c: NodeJS.CpuUsage, n: number) => (c.user + c.system) / Math.max(1, n);
        rows.push(
          {
            name: `command round trip p50 at ${rate}/s (console process -> gateway -> device process (${SWARM_DEVICE} bench devices) -> back, ${rtt.ms.length} cmds${rtt.failed ? `, ${rtt.failed} FAILED` : ''})`,
            value: percentile(rtt.ms, 50),
            unit: 'ms',
            baseline: percentile(bare.ms, 50),
            target: 'baseline: bare ws echo, client forked the same way',
          },
          { name: `command round trip p99 at ${rate}/s`, value: percentile(rtt.ms, 99), unit: 'ms', baseline: percentile(bare.ms, 99), target: '< 10 ms at 5,000/s; <= 4x the echo' },
          {
            name: `  p99 at ${rate}/s against a bare ws relay (client -> relay in this process -> ${RELAY_DEVICE_SOCKETS} sockets of a forked echoing process, in turn -> back, ${relay.ms.length} msgs${relay.failed ? `, ${relay.failed} FAILED` : ''})`,
            value: percentile(rtt.ms, 99),
            unit: 'ms',
            baseline: percentile(relay.ms, 99),
          },
          ...(warmup
            ? [{ name: `  round trip p99 during the ${WARMUP_SECONDS} s at ${rate}/s just before, not counted above (the transient after a step up in rate)`, value: percentile(warmup.ms, 99), unit: 'ms' }]
            : []),
          {
            name: `server CPU per command at ${rate}/s (gateway process; baseline: the echo server per echo)`,
            value: perMessage(rttCpu, rtt.ms.length),
            unit: 'us',
            baseline: perMessage(bareCpu, bare.ms.length),
            target: '<= 2x the echo',
          },
          {
            // A relay reads and writes two sockets per command, the echo one: the honest floor for a gateway.
            name: `  server CPU per command at ${rate}/s against the bare ws relay (per relayed round trip)`,
            value: perMessage(rttCpu, rtt.ms.length),
            unit: 'us',
            baseline: perMessage(relayCpu, relay.ms.length),
          },
          {
            // The kernel's part: socket reads and writes (on loopback a write also runs the receiver's TCP path).
            name: `  of which system (kernel) time at ${rate}/s, gateway; baseline: the echo's`,
            value: rttCpu.system / Math.max(1, rtt.ms.length),
            unit: 'us',
            baseline: bareCpu.system / Math.max(1, bare.ms.length),
          },
          {
            // The rest is the process's other threads: V8's collector and compilers, libuv's pool.
            name: `  of which on the gateway's main thread (the event loop) at ${rate}/s`,
            value: perMessage(rttMain, rtt.ms.length),
            unit: 'us',
          },
          {
            name: `  of which system (kernel) time at ${rate}/s, gateway; baseline: the relay's`,
            value: rttCpu.system / Math.max(1, rtt.ms.length),
            unit: 'us',
            baseline: relayCpu.system / Math.max(1, relay.ms.length),
          },
          {
            name: `gateway event-loop delay p99 / max at ${rate}/s (1 ms timer resolution)`,
            value: loopDelay.percentile(99) / 1e6,
            unit: `ms / ${(loopDelay.max / 1e6).toFixed(1)} ms`,
          },
          {
            name: `  time runnable but waiting for a CPU during the ${SECONDS} s at ${rate}/s: gateway / client / swarms (on a CPU: ${sched.map((x) => Math.round(x.onCpu)).join(' / ')} ms)`,
            value: sched[0]?.waiting ?? 0,
            unit: `ms / ${sched.slice(1).map((x) => Math.round(x.waiting)).join(' / ')} ms`,
          },
        );
      }
    }

    if (PHASES.has('broadcast')) {
      // Broadcast: one text pushed to every device of the set by the server, as a bulk action does; done
      // when the last device's reply is back.
      const fan = Math.min(BROADCAST, devices);
      const broadcast = () => Promise.all(Array.from({ length: fan }, (_, k) => server.gateway.command(snOf(k), Command.PushText, { title: 'bench', text: 'broadcast' }, { timeoutMs: 60_000 })));
      // Warm first, as for round trips: a simulated device builds its simulated backend (files, apps,
      // processes) on its first command, which is simulator cost, not gateway cost.
      await broadcast();
      await sleep(1_000);
      const t0 = performance.now();
      const replies = await broadcast();
      const fanMs = performance.now() - t0;
      const fanOk = replies.filter((r) => r.result === Result.Success).length;
      const bare = await bareWsBroadcastMs(fan, BARE_SOURCE_BLOCK);
      rows.push({
        name: `broadcast (push text) to ${fan} devices, until every reply is back (${fanOk} succeeded; ${SWARM_DEVICE} bench devices; second of two, the first warms the simulator)`,
        value: fanMs,
        unit: 'ms',
        baseline: bare,
        target: '<= 250 ms for 10,000; baseline: a bare ws server process sending a frame to as many connections of an echoing bare client process',
      });
    }

    if (PHASES.has('ingest')) {
      // Ingest: every swarm sends status uploads as fast as it can. A message is absorbed once the node has
      // handled it: decoded, validated, applied to the latest state per device and checked against the
      // abnormal thresholds (dcc_telemetry_absorbed_total). Samples are persisted separately, coalesced to
      // at most one per device per sampling interval, in multi-row batches (docs/DECISIONS.md).
      for (const burst of INGEST_BURSTS) {
        const absorbedBefore = await telemetryCount(server, 'absorbed');
        const persistedBefore = await telemetryCount(server, 'samples_persisted');
        const t0 = performance.now();
        const cpu = process.cpuUsage();
        const blast = await swarms.blast(INGEST_SECONDS, burst);
        await waitFor(async () => (await telemetryCount(server, 'absorbed')) - absorbedBefore >= blast.sent, 60_000);
        const ingestSeconds = (performance.now() - t0) / 1_000;
        const used = process.cpuUsage(cpu);
        const absorbed = (await telemetryCount(server, 'absorbed')) - absorbedBefore;
        // Let the last batch land before counting persisted rows.
        await sleep(1_500);
        const persisted = (await telemetryCount(server, 'samples_persisted')) - persistedBefore;
        rows.push(
          {
            name: `status uploads absorbed, ${burst === 1 ? 'one write per upload' : `${burst} uploads per device per write`} (decoded, validated, latest state and thresholds applied; ${absorbed} of ${blast.sent} sent in ${ingestSeconds.toFixed(1)} s by ${SWARMS} swarms)`,
            value: absorbed / ingestSeconds,
            unit: 'msg/s',
            baseline: blast.sent / (blast.ms / 1_000),
            target: '>= 100,000/s; baseline: what the swarm processes could send',
          },
          { name: `  server CPU per absorbed upload (burst ${burst})`, value: (used.user + used.system) / Math.max(1, absorbed), unit: 'us' },
          { name: `  status samples persisted meanwhile (coalesced: at most one per device per sampling interval, multi-row batches)`, value: persisted, unit: 'rows' },
        );
      }
    }

    if (PHASES.has('transfer')) {
      // File transfer through the gateway: chunks relayed unchanged on a flow, with acknowledgement windows,
      // between a console in the forked transfer client and a device of a swarm. The gateway's CPU during the
      // transfers is printed too: what the relay costs, beside what the ends cost.
      const transferClient = new ForkedProcess<TransferRequest, TransferReply>(path.resolve(import.meta.dirname, 'gateway/transfer-client.ts'), {});
      const sink = await bareWsSink();
      try {
        await transferClient.next('ready');
        await transferClient.next('connected', { kind: 'console', url: consoleUrl });
        const up: number[] = [];
        const down: number[] = [];
        const bare: number[] = [];
        let relayCpu = 0;
        let sinkCpu = 0;
        let endsCpu = 0;
        // The device's end of the transfers: the first device of the first swarm (snOf(0)).
        const devicePid = swarms.all[0]?.child.pid;
        for (let round = 0; round < TRANSFER_ROUNDS; round++) {
          // Each measured part starts from a collected heap. V8 counts external memory allocated since its
          // last mark-compact against the old generation's headroom, which is small on a heap that grows
          // slowly (about 8 MB here): the bare sink's burst leaves some 18 MB of socket read buffers, and the
          // mark-compact it starts was then marked on the next transfer's time (7-8 ms per MiB "relayed",
          // 2.4-2.9 ms once collected between the parts). Found with --trace-gc --trace-incremental-marking and
          // v8.getHeapStatistics().external_memory sampled every 5 ms (DECISIONS, file transfers).
          globalThis.gc?.();
          let cpu = process.cpuUsage();
          bare.push((await transferClient.next('bulked', { kind: 'bulk', url: sink.url, bytes: TRANSFER_BYTES })).mbs);
          let used = process.cpuUsage(cpu);
          sinkCpu += (used.user + used.system) / 1_000;
          globalThis.gc?.();
          cpu = process.cpuUsage();
          const deviceCpu = processCpuMs(devicePid);
          const moved = await transferClient.next('transferred', { kind: 'transfer', sn: snOf(0), bytes: TRANSFER_BYTES });
          used = process.cpuUsage(cpu);
          relayCpu += (used.user + used.system) / 1_000;
          endsCpu += moved.cpuMs + processCpuMs(devicePid) - deviceCpu;
          up.push(moved.uploadMBs);
          down.push(moved.downloadMBs);
        }
        const mib = TRANSFER_BYTES / 1024 / 1024;
        rows.push(
          { name: `file upload through the gateway (${mib} MiB, SHA-256 checked; median of ${TRANSFER_ROUNDS}, console forked)`, value: median(up), unit: 'MB/s', baseline: median(bare), target: '>= 50% of the baseline: bare ws into this process from the forked client, 64 KiB frames, no acks' },
          { name: `file download through the gateway (${mib} MiB)`, value: median(down), unit: 'MB/s', baseline: median(bare) },
          {
            name: `  gateway CPU per MiB relayed (both directions, ${TRANSFER_ROUNDS} rounds; baseline: the bare ws server's per MiB received, whose frames it neither forwards nor sends)`,
            value: relayCpu / (TRANSFER_ROUNDS * 2 * mib),
            unit: 'ms',
            baseline: sinkCpu / (TRANSFER_ROUNDS * mib),
          },
          { name: `  the ends' CPU per MiB moved (console process and the device's swarm process together: chunking, CRC-32, SHA-256, the device's file)`, value: endsCpu / (TRANSFER_ROUNDS * 2 * mib), unit: 'ms' },
        );
      } finally {
        transferClient.stop();
        sink.close();
      }
    }

    if (PHASES.has('restart')) {
      // Restart: keep RESTART devices, let the rest be marked offline, then the node dies and comes back
      // on the same port and database and every kept device reconnects (full-jitter backoff).
      const kept = await swarms.keep(Math.min(RESTART, devices));
      await waitFor(async () => server.gateway.deviceCount <= kept && (await count(server, 'devices', true)) <= kept, 120_000);
      await server.close();
      const t0 = performance.now();
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
    }
    return rows;
  } finally {
    client.stop();
    swarms.stop();
    bareServer.close();
    relayServer?.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
