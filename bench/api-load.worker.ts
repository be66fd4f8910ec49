/**
 * The API bench's load generators, run in a worker thread so the main thread runs the server alone: its
 * thread CPU time (process.threadCpuUsage) over a load window is then the server's cost, which a busy shared
 * machine does not distort as it does latencies. The worker posts `started` when its first request is due
 * and the result when the last one has returned.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

/** What the main thread asks for: a paced open loop or an autocannon closed loop. */
export interface LoadOrder {
  readonly kind: 'paced' | 'closed';
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly token: string;
  readonly body?: unknown;
  readonly clients: number;
  /** Requests a second per client (paced only). */
  readonly ratePerClient: number;
  readonly seconds: number;
}

export interface LoadResult {
  readonly rps: number;
  readonly p99: number;
  readonly errors: number;
  /** Requests answered (2xx or not) in the window, for per-request CPU. */
  readonly requests: number;
}

export type LoadMessage = { readonly type: 'started' } | { readonly type: 'done'; readonly result: LoadResult };

const aggregate = (autocannon as unknown as { aggregateResult(results: unknown[], opts: autocannon.Options): autocannon.Result }).aggregateResult;

const post = (message: LoadMessage) => parentPort?.postMessage(message);

/**
 * An open-loop load: `clients` keep-alive connections, requests due at an even pace (`ratePerClient` per
 * client per second, spread over the second rather than fired together), each one's latency counted from
 * when it was due, so a server that falls behind is not flattered by the generator waiting for it.
 * autocannon's rate options fire the connections in step (a burst of 200 at once each second): its p99 at
 * 200 paced requests a second was 600 ms against the bare server.
 */
async function pacedLoad(o: LoadOrder): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.clients });
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
  const headers = { 'x-token': o.token, 'content-type': 'application/json', ...(payload ? { 'content-length': Buffer.byteLength(payload) } : {}) };
  const one = () =>
    new Promise<boolean>((resolve) => {
      const req = http.request(o.url, { method: o.method, agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve((res.statusCode ?? 0) < 300));
      });
      req.on('error', () => resolve(false));
      req.end(payload);
    });
  const rate = o.clients * o.ratePerClient;
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  let errors = 0;
  post({ type: 'started' });
  const start = performance.now();
  const end = start + o.seconds * 1_000;
  let sent = 0;
  for (let now = start; now < end; now = performance.now()) {
    for (const owed = Math.floor(((now - start) / 1_000) * rate); sent < owed; sent++) {
      const due = start + (sent / rate) * 1_000;
      inflight.push(one().then((ok) => void (ok ? latencies.push(performance.now() - due) : errors++)));
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inflight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / ((performance.now() - start) / 1_000),
    p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? NaN,
    errors,
    requests: latencies.length + errors,
  };
}

/** A closed loop: every client sends its next request the moment the last returns (saturation). */
async function closedLoad(o: LoadOrder): Promise<LoadResult> {
  post({ type: 'started' });
  // Off the main thread autocannon returns the raw histograms (it takes itself for one of its own workers):
  // its exported aggregateResult (missing from its typings) makes the usual result of them.
  const raw: unknown = await autocannon({
    url: o.url,
    method: o.method,
    connections: o.clients,
    duration: o.seconds,
    headers: { 'x-token': o.token, 'content-type': 'application/json' },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const result = aggregate([raw], { url: o.url, connections: o.clients, duration: o.seconds });
  // The per-second request histogram is not aggregated this way (autocannon's manager fills it): the average
  // is the completed requests over the duration.
  return { rps: result.requests.total / result.duration, p99: result.latency.p99, errors: result.errors + result.non2xx, requests: result.requests.total };
}

const order = workerData as LoadOrder;
post({ type: 'done', result: await (order.kind === 'paced' ? pacedLoad(order) : closedLoad(order)) });
