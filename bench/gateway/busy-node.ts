import type { BenchRow } from '../table.ts';
import { bareWsBroadcastMs, bareWsEchoServer, bareWsRelay, RELAY_DEVICE_SOCKETS } from './baselines.ts';
import { benchEnv, consoleSocketUrl, percentile, sleep } from './bench-env.ts';
import { RoundTripClient } from './client-process.ts';
import type { SwarmProcess } from './swarm-process.ts';

// The busy phases on the node of workers holding the whole fleet (issue 21's last row): command round
// trips from a console, a broadcast from it, and a status blast from every device swarm, while every device
// of the fleet stays connected. The console's socket lands on one worker and a command's device is usually
// held by another, so most commands cross the node's IPC bus both ways, as they would in production.
//
// The single-process phases of gateway.bench.ts measure the same things on one process; the two sets of
// rows side by side show what the workers' bus costs.

const env = process.env;
const { rates: RATES, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, broadcast: BROADCAST, ingestSeconds: INGEST_SECONDS, ingestBursts: INGEST_BURSTS } = benchEnv;

/** The monotonic clock in us, the one V8's CPU profiles stamp their samples with (Linux). */
const monotonicUs = () => process.hrtime.bigint() / 1_000n;
/** With BENCH_CPU_PROF, prints a measured window's span on that clock, to cut the profiles to it (stderr). */
function markWindow(name: string, from: bigint): void {
  if (env.BENCH_CPU_PROF) process.stderr.write(`profile window ${name}: ${from} ${monotonicUs()}\n`);
}

/** Loopback source block of the bare broadcast baseline's clients, apart from every swarm's. */
export const BARE_SOURCE_BLOCK = 200;


/** One device swarm of the fleet: its process, how many devices it runs and their serial prefix. */
export interface FleetSwarm {
  readonly process: SwarmProcess;
  readonly devices: number;
  readonly snPrefix: string;
}

/** What the busy phases need of the node under test. */
export interface BusyNode {
  /** http://host:port of the node. */
  readonly url: string;
  readonly password: string;
  /** CPU (user + system, ms) the node's processes (primary and workers) have used so far. */
  readonly cpuMs: () => number;
  /** The node's /metrics, summed over its workers. */
  readonly metric: (name: string) => Promise<number>;
}

/**
 * Serials of `count` devices dealt round robin over the swarms, leaving out each swarm's first device (a
 * full simulated one among light devices, kept for transfers: every command here meets a light device).
 */
export function fleetSerials(swarms: readonly FleetSwarm[], count: number): string[] {
  const sns: string[] = [];
  const most = Math.max(...swarms.map((s) => s.devices));
  for (let i = 2; i <= most && sns.length < count; i++) {
    for (const s of swarms) {
      if (i <= s.devices && sns.length < count) sns.push(`${s.snPrefix}${String(i).padStart(Math.max(5, String(s.devices).length), '0')}`);
    }
  }
  return sns;
}

/** Round trips, broadcast and status ingest against the node of workers; `phases` picks among rtt, broadcast and ingest. */
export async function measureBusyNode(node: BusyNode, swarms: readonly FleetSwarm[], phases: ReadonlySet<string>): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const held = swarms.reduce((n, s) => n + s.devices, 0);
  const client = new RoundTripClient();
  const echo = await bareWsEchoServer();
  const relay = await bareWsRelay();
  try {
    await client.next('connected', { kind: 'console', url: await consoleSocketUrl(node.url, node.password) });
    if (phases.has('rtt')) {
      await client.next('connected', { kind: 'bare', url: echo.url });
      await client.next('connected', { kind: 'relay', url: relay.url });
      const sns = fleetSerials(swarms, 2_000);
      await client.next('latencies', { kind: 'paced', over: 'console', rate: 1_000, seconds: sns.length / 1_000, sns });
      for (const rate of RATES) {
        const warmup = WARMUP_SECONDS > 0 ? await client.next('latencies', { kind: 'paced', over: 'console', rate, seconds: WARMUP_SECONDS, sns }) : undefined;
        const nodeCpu = node.cpuMs();
        const from = monotonicUs();
        const rtt = await client.next('latencies', { kind: 'paced', over: 'console', rate, seconds: SECONDS, sns });
        const rttCpuUs = (node.cpuMs() - nodeCpu) * 1_000;
        markWindow(`rtt-${rate}`, from);
        // The baselines run in this process, which does nothing else meanwhile.
        let cpu = process.cpuUsage();
        const bare = await client.next('latencies', { kind: 'paced', over: 'bare', rate, seconds: SECONDS, sns: [] });
        const bareCpu = process.cpuUsage(cpu);
        cpu = process.cpuUsage();
        const relayed = await client.next('latencies', { kind: 'paced', over: 'relay', rate, seconds: SECONDS, sns: [] });
        const relayCpu = process.cpuUsage(cpu);
        const per = (us: number, n: number) => us / Math.max(1, n);
        rows.push(
          {
            name: `node of workers: command round trip p50 at ${rate}/s (console -> a worker -> the device's worker -> device -> back, ${held.toLocaleString('en-US')} devices held, ${rtt.ms.length} cmds${rtt.failed ? `, ${rtt.failed} FAILED` : ''})`,
            value: percentile(rtt.ms, 50),
            unit: 'ms',
            baseline: percentile(bare.ms, 50),
            target: 'baseline: bare ws echo, client forked the same way',
          },
          { name: `node of workers: command round trip p99 at ${rate}/s`, value: percentile(rtt.ms, 99), unit: 'ms', baseline: percentile(bare.ms, 99), target: '<= 4x the echo' },
          { name: `  p99 at ${rate}/s against a bare ws relay (over ${RELAY_DEVICE_SOCKETS} device sockets, ${relayed.ms.length} msgs)`, value: percentile(rtt.ms, 99), unit: 'ms', baseline: percentile(relayed.ms, 99) },
          ...(warmup ? [{ name: `  round trip p99 during the ${WARMUP_SECONDS} s at ${rate}/s just before (the transient after a step up in rate)`, value: percentile(warmup.ms, 99), unit: 'ms' }] : []),
          {
            name: `node of workers: CPU per command at ${rate}/s (primary and every worker; baseline: the echo server per echo)`,
            value: per(rttCpuUs, rtt.ms.length),
            unit: 'us',
            baseline: per(bareCpu.user + bareCpu.system, bare.ms.length),
            target: '<= 2x the echo',
          },
          { name: `  node CPU per command at ${rate}/s against the bare ws relay`, value: per(rttCpuUs, rtt.ms.length), unit: 'us', baseline: per(relayCpu.user + relayCpu.system, relayed.ms.length) },
        );
      }
    }
    if (phases.has('broadcast')) {
      const sns = fleetSerials(swarms, BROADCAST);
      // Warm first: the first push to each device builds caches at both ends.
      await client.next('broadcasted', { kind: 'broadcast', sns });
      await sleep(1_000);
      const cpu = node.cpuMs();
      const from = monotonicUs();
      const fan = await client.next('broadcasted', { kind: 'broadcast', sns });
      const used = node.cpuMs() - cpu;
      markWindow('broadcast', from);
      const bare = await bareWsBroadcastMs(sns.length, BARE_SOURCE_BLOCK);
      rows.push(
        {
          name: `node of workers: broadcast (push text) from a console to ${sns.length} devices, all sent at once, until every reply is back (${fan.succeeded} succeeded${fan.failed ? `, ${fan.failed} FAILED` : ''}; second of two)`,
          value: fan.ms,
          unit: 'ms',
          baseline: bare,
          target: '<= 250 ms for 10,000; baseline: a bare ws server process sending a frame to as many connections of an echoing bare client process',
        },
        { name: '  node CPU per device of the broadcast (primary and every worker)', value: (used * 1_000) / Math.max(1, sns.length), unit: 'us' },
      );
    }
    if (phases.has('ingest')) {
      for (const burst of INGEST_BURSTS) {
        const before = await node.metric('dcc_telemetry_absorbed_total');
        const cpu = node.cpuMs();
        const t0 = performance.now();
        const from = monotonicUs();
        const each = await Promise.all(swarms.map((s) => s.process.next('blasted', { kind: 'blast', seconds: INGEST_SECONDS, burst })));
        const sent = each.reduce((n, b) => n + b.sent, 0);
        const sendMs = Math.max(...each.map((b) => b.ms));
        const end = performance.now() + 60_000;
        while ((await node.metric('dcc_telemetry_absorbed_total')) - before < sent && performance.now() < end) await sleep(100);
        const seconds = (performance.now() - t0) / 1_000;
        const absorbed = (await node.metric('dcc_telemetry_absorbed_total')) - before;
        markWindow(`ingest-${burst}`, from);
        rows.push(
          {
            name: `node of workers: status uploads absorbed, ${burst === 1 ? 'one write per upload' : `${burst} uploads per device per write`} (${absorbed} of ${sent} sent in ${seconds.toFixed(1)} s by ${swarms.length} swarms)`,
            value: absorbed / seconds,
            unit: 'msg/s',
            baseline: sent / (sendMs / 1_000),
            target: '>= 100,000/s; baseline: what the swarm processes could send',
          },
          { name: `  node CPU per absorbed upload (burst ${burst}, primary and every worker)`, value: ((node.cpuMs() - cpu) * 1_000) / Math.max(1, absorbed), unit: 'us' },
        );
      }
    }
    return rows;
  } finally {
    client.stop();
    echo.close();
    relay.close();
  }
}
