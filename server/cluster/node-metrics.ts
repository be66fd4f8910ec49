import { AggregatorRegistry, Gauge, type MetricObjectWithValues, type MetricValue, Registry } from 'prom-client';

type MetricValues = MetricObjectWithValues<MetricValue<string>>[];

/**
 * /metrics of a node with several worker processes. A scrape lands on whichever worker the OS picks, so
 * that worker asks the primary, which collects every worker's figures and sums them with prom-client's
 * AggregatorRegistry (counters and gauges add up; histograms add per bucket). Per-worker device and
 * console counts are added as `dcc_worker_*{worker,pid}` so an uneven spread shows.
 */
export type MetricsIpcMessage =
  /** Worker to primary: a scrape arrived; answer with the node's exposition. */
  | { readonly dcc: 'metrics.scrape'; readonly id: number }
  /** Primary to worker: send your registry's figures. */
  | { readonly dcc: 'metrics.collect'; readonly id: number }
  | { readonly dcc: 'metrics.values'; readonly id: number; readonly values: MetricValues }
  /** Primary to worker: the node's exposition for scrape `id`. */
  | { readonly dcc: 'metrics.text'; readonly id: number; readonly text: string };

export function isMetricsIpcMessage(value: unknown): value is MetricsIpcMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { dcc?: unknown; id?: unknown };
  return typeof m.dcc === 'string' && m.dcc.startsWith('metrics.') && typeof m.id === 'number';
}

/** How long the primary waits for a worker's figures; a worker that does not answer is left out. */
export const COLLECT_TIMEOUT_MS = 2_000;

/** A worker as the primary's metrics collection sees it. */
export interface MetricsSource {
  readonly label: string;
  readonly pid: number;
  send(message: MetricsIpcMessage): void;
}

/** The Prometheus text of the whole node from each worker's figures (`undefined`: it did not answer). */
export async function nodeExposition(perWorker: readonly { source: MetricsSource; values: MetricValues | undefined }[]): Promise<string> {
  const answered = perWorker.filter((w): w is { source: MetricsSource; values: MetricValues } => w.values !== undefined);
  const total = AggregatorRegistry.aggregate(answered.map((w) => w.values));
  const workers = new Registry();
  const labelNames = ['worker', 'pid'] as const;
  const devices = new Gauge({ name: 'dcc_worker_devices_connected', help: 'Device sockets held by each worker process of this node', labelNames, registers: [workers] });
  const consoles = new Gauge({ name: 'dcc_worker_consoles_connected', help: 'Console sockets held by each worker process of this node', labelNames, registers: [workers] });
  const up = new Gauge({ name: 'dcc_worker_up', help: '1 when the worker answered this scrape', labelNames, registers: [workers] });
  for (const w of perWorker) {
    const labels = { worker: w.source.label, pid: String(w.source.pid) };
    up.set(labels, w.values ? 1 : 0);
    const valueOf = (name: string) => w.values?.find((m) => m.name === name)?.values[0]?.value ?? 0;
    devices.set(labels, valueOf('dcc_devices_connected'));
    consoles.set(labels, valueOf('dcc_consoles_connected'));
  }
  return `${await total.metrics()}\n${await workers.metrics()}`;
}

/** The primary's side: collects every worker's figures for one scrape. */
export class MetricsCollector {
  #next = 0;
  readonly #waiting = new Map<number, { expect: Set<MetricsSource>; got: Map<MetricsSource, MetricValues>; done: () => void }>();

  /** Asks each source for its figures and resolves with the node's exposition. */
  async exposition(sources: readonly MetricsSource[]): Promise<string> {
    const id = this.#next++;
    const got = new Map<MetricsSource, MetricValues>();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, COLLECT_TIMEOUT_MS);
      function finish() {
        clearTimeout(timer);
        resolve();
      }
      const expect = new Set(sources);
      this.#waiting.set(id, { expect, got, done: finish });
      if (expect.size === 0) finish();
      for (const s of sources) s.send({ dcc: 'metrics.collect', id });
    });
    this.#waiting.delete(id);
    return nodeExposition(sources.map((source) => ({ source, values: got.get(source) })));
  }

  /** A worker's answer. */
  answered(source: MetricsSource, id: number, values: MetricValues): void {
    const w = this.#waiting.get(id);
    if (!w?.expect.has(source)) return;
    w.got.set(source, values);
    if (w.got.size === w.expect.size) w.done();
  }
}

/** The worker's side: answers the primary's collections and turns its own scrapes into node scrapes. */
export class WorkerMetricsClient {
  #next = 0;
  readonly #pending = new Map<number, (text: string) => void>();
  readonly #registry: Registry;
  readonly #send: (message: MetricsIpcMessage) => void;

  constructor(registry: Registry, send: (message: MetricsIpcMessage) => void) {
    this.#registry = registry;
    this.#send = send;
  }

  /** Handles one message from the primary (others are ignored). */
  receive(message: unknown): void {
    if (!isMetricsIpcMessage(message)) return;
    if (message.dcc === 'metrics.collect') {
      void this.#registry.getMetricsAsJSON().then((values) => this.#send({ dcc: 'metrics.values', id: message.id, values }));
    } else if (message.dcc === 'metrics.text') {
      this.#pending.get(message.id)?.(message.text);
      this.#pending.delete(message.id);
    }
  }

  /** The node's exposition, through the primary. */
  scrape(): Promise<string> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      // The primary answers within its own collection timeout; this one only catches a primary that is gone.
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error('the node primary did not answer the metrics scrape'));
      }, COLLECT_TIMEOUT_MS * 2);
      this.#pending.set(id, (text) => {
        clearTimeout(timer);
        resolve(text);
      });
      this.#send({ dcc: 'metrics.scrape', id });
    });
  }
}
