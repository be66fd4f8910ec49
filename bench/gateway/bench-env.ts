import { clientPasswordHash } from '../../server/seed.ts';

// What the gateway bench's phases share: the knobs read from the environment (README, Benchmarks), the
// helpers every phase uses, and how a phase logs its console in. The single-process phases
// (gateway.bench.ts) and the busy phases on the node of workers (busy-node.ts) read the same ones, so one
// setting moves both.

const env = process.env;

export const benchEnv = {
  /** Command rates of the round-trip phases, per second. */
  rates: String(env.BENCH_RATES ?? env.BENCH_RATE ?? '2000,5000').split(',').map(Number),
  /** Seconds of each measured window. */
  seconds: Number(env.BENCH_SECONDS ?? 5),
  /**
   * Seconds at each rate before its measured window. The first seconds after a step up in rate are a
   * transient (heaps growing to their working size, code tiering up in every process): round trips queue
   * behind it for up to 100 ms at a time. Its p99 is printed on a row of its own, not hidden.
   */
  warmupSeconds: Number(env.BENCH_WARMUP_SECONDS ?? 4),
  /** Devices a broadcast goes to. */
  broadcast: Number(env.BENCH_BROADCAST ?? 10_000),
  /** Seconds of each status blast. */
  ingestSeconds: Number(env.BENCH_INGEST_SECONDS ?? 5),
  /**
   * Uploads each device sends back to back in the ingest blast (one write). With 1, every upload is its
   * own loopback write, which costs the sender more than the gateway and caps the rate at what the swarms
   * can send.
   */
  ingestBursts: String(env.BENCH_INGEST_BURSTS ?? '1,10').split(',').map(Number),
} as const;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `p`th percentile of sorted samples (nearest rank), NaN for none. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Logs the seeded admin in over REST at `httpUrl` and returns the console socket's URL for the session. */
export async function consoleSocketUrl(httpUrl: string, password: string): Promise<string> {
  const res = await fetch(`${httpUrl}/login/userLogin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: clientPasswordHash(password) }) });
  const login = ((await res.json()) as { data: { token: string; id: number; org: { id: number } } }).data;
  return `${httpUrl.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.id}&orgId=${login.org.id}`;
}
