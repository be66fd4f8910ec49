import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, type MetricObjectWithValues, type MetricValue, Registry } from 'prom-client';
import { Command } from '../../protocol/index.ts';
import { peerTraffic } from '../gateway/peer.ts';

const commandNames = new Map<number, string>(Object.entries(Command).map(([name, id]) => [id, name]));

/** Upper bounds of the command latency buckets, in seconds: from a LAN round trip (1 ms) to the 30 s command timeout. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One command id's latencies: observations per bucket (not cumulative; the last is past every bound), their sum and count. */
interface LatencyCounts {
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

const LATENCY_NAME = 'dcc_command_duration_seconds';
/** prom-client's declarations type a metric's `type` as a numeric enum its code does not export; its code writes the name. */
const HISTOGRAM_TYPE = 'histogram' as unknown as MetricObjectWithValues<MetricValue<string>>['type'];
const LATENCY_HELP = 'Time from a command to its final result';

/**
 * The command latency histogram, counted in plain numbers per command id on the hot path and written out
 * at scrape time in prom-client's form (the same series as its Histogram's). prom-client's `observe`
 * validates and hashes the labels on every call, a bound child too: a few per cent of a broadcast.
 */
class CommandLatency extends Histogram<string> {
  readonly #counts: ReadonlyMap<number, LatencyCounts>;

  constructor(registry: Registry, counts: ReadonlyMap<number, LatencyCounts>) {
    super({ name: LATENCY_NAME, help: LATENCY_HELP, labelNames: ['command'], buckets: LATENCY_BUCKETS, registers: [registry] });
    this.#counts = counts;
  }

  /** The series as registry JSON (what a node's workers send to be added up): each value's labels whole. */
  override get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    return Promise.resolve(this.#series(true));
  }

  /** The series for the text exposition (the registry calls this in place of get), labels as prom-client's Histogram gives them. */
  getForPromString(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    return Promise.resolve(this.#series(false));
  }

  #series(whole: boolean): MetricObjectWithValues<MetricValue<string>> {
    const name = LATENCY_NAME;
    const values: (MetricValue<string> & { readonly metricName: string; readonly sharedLabels?: Readonly<Record<string, string>> })[] = [];
    for (const [id, c] of this.#counts) {
      const command = commandNames.get(id) ?? String(id);
      const shared = { command };
      const value = (labels: Record<string, string | number>, v: number, metricName: string) =>
        values.push(whole ? { labels: { ...labels, command }, value: v, metricName } : { labels, sharedLabels: shared, value: v, metricName });
      let acc = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        acc += c.buckets[i] ?? 0;
        value({ le }, acc, `${name}_bucket`);
      });
      value({ le: '+Inf' }, c.count, `${name}_bucket`);
      value({}, c.sum, `${name}_sum`);
      value({}, c.count, `${name}_count`);
    }
    // Histograms add up across a node's workers (AggregatorRegistry), bucket by bucket: aggregator 'sum'.
    // No `collect` (prom-client's declarations ask for one; its get() gives none): this object crosses the
    // workers' IPC channel, where a function cannot be cloned.
    return { name, help: LATENCY_HELP, type: HISTOGRAM_TYPE, values, aggregator: 'sum' } as unknown as MetricObjectWithValues<MetricValue<string>>;
  }
}

/** Gateway figures in Prometheus form: connections, command outcomes and latency. */
export class GatewayMetrics {
  readonly registry = new Registry();
  /** Final results per command, as msgId * 8 + result (results are 0..7): counted on the hot path, labelled at scrape. */
  readonly #outcomes = new Map<number, number>();
  /** Command latencies per command id (the dcc_command_duration_seconds histogram, written out at scrape). */
  readonly #latency = new Map<number, LatencyCounts>();
  readonly #logins: Counter;
  readonly #reconnects: Counter;

  constructor(sources: { devices: () => number; consoles: () => number; flows: () => number; admissionsRefused?: () => number; admissionsWaited?: () => number; persistentWaiting?: () => number }) {
    const registers = [this.registry];
    new Gauge({ name: 'dcc_devices_connected', help: 'Device sockets held by this node', registers, collect() {
      this.set(sources.devices());
    } });
    new Gauge({ name: 'dcc_consoles_connected', help: 'Console sockets held by this node', registers, collect() {
      this.set(sources.consoles());
    } });
    new Counter({ name: 'dcc_device_admissions_refused_total', help: 'Device sockets answered 503 for the admission rate or the logins in flight (reconnect storms)', registers, collect() {
      this.reset();
      this.inc(sources.admissionsRefused?.() ?? 0);
    } });
    new Counter({ name: 'dcc_device_admissions_waited_total', help: 'Device sockets admitted after waiting for a place among the logins in flight or for the admission rate', registers, collect() {
      this.reset();
      this.inc(sources.admissionsWaited?.() ?? 0);
    } });
    new Gauge({ name: 'dcc_flows_open', help: 'Shell sessions and transfers routed by this node', registers, collect() {
      this.set(sources.flows());
    } });
    const outcomes = this.#outcomes;
    new Counter({ name: 'dcc_commands_total', help: 'Commands to devices (from consoles, REST calls and campaigns) by command and final result code', labelNames: ['command', 'result'], registers, collect() {
      this.reset();
      for (const [key, n] of outcomes) {
        const id = Math.floor(key / 8);
        this.inc({ command: commandNames.get(id) ?? String(id), result: String(key % 8) }, n);
      }
    } });
    new CommandLatency(this.registry, this.#latency);
    // Read at scrape time from the sockets' own counters, so the hot path only bumps numbers.
    const byCommand = (m: Map<number, number>, counter: Counter<'command'>) => {
      counter.reset();
      for (const [id, n] of m) counter.inc({ command: commandNames.get(id) ?? String(id) }, n);
    };
    new Counter({ name: 'dcc_messages_in_total', help: 'Envelopes received from devices and consoles, by command', labelNames: ['command'], registers, collect() {
      byCommand(peerTraffic.in, this);
    } });
    new Counter({ name: 'dcc_messages_out_total', help: 'Envelopes sent to devices and consoles, by command', labelNames: ['command'], registers, collect() {
      byCommand(peerTraffic.out, this);
    } });
    new Counter({ name: 'dcc_chunks_relayed_total', help: 'Binary chunk frames relayed between consoles and devices', registers, collect() {
      this.reset();
      this.inc(peerTraffic.chunks);
    } });
    new Counter({ name: 'dcc_send_buffer_drops_total', help: 'Live messages skipped because a socket was backed up', registers, collect() {
      this.reset();
      this.inc(peerTraffic.liveDropped);
    } });
    new Counter({ name: 'dcc_slow_sockets_closed_total', help: 'Sockets closed because their unsent bytes passed the hard limit (a peer that stopped reading)', registers, collect() {
      this.reset();
      this.inc(peerTraffic.slowClosed);
    } });
    this.#logins = new Counter({ name: 'dcc_device_logins_total', help: 'Device logins (first connections and reconnects)', registers });
    this.#reconnects = new Counter({ name: 'dcc_device_reconnects_total', help: 'Logins of devices enrolled before (every login but the first of a device)', registers });
  }

  /** Records a command's final result and how long it took (console, REST and campaign commands alike). */
  commandOutcome(msgId: number, result: number, ms: number): void {
    const key = msgId * 8 + (result & 7);
    this.#outcomes.set(key, (this.#outcomes.get(key) ?? 0) + 1);
    let latency = this.#latency.get(msgId);
    if (!latency) {
      latency = { buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 };
      this.#latency.set(msgId, latency);
    }
    const seconds = ms / 1000;
    // prom-client refuses a non-finite observation (it throws); a clock that moves backwards gives a negative one, which it takes.
    if (!Number.isFinite(seconds)) return;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket++;
    latency.buckets[bucket] = (latency.buckets[bucket] ?? 0) + 1;
    latency.sum += seconds;
    latency.count++;
  }

  /** Adds the telemetry ingest's counters (read at scrape time; the ingest only bumps numbers). */
  telemetrySource(source: () => { readonly absorbed: number; readonly samplesPersisted: number }): void {
    const registers = [this.registry];
    new Counter({ name: 'dcc_telemetry_absorbed_total', help: 'Status and runtime uploads handled: validated, applied to the latest state, thresholds checked', registers, collect() {
      this.reset();
      this.inc(source().absorbed);
    } });
    new Counter({ name: 'dcc_telemetry_samples_persisted_total', help: 'Status samples written (coalesced to the sampling interval per device)', registers, collect() {
      this.reset();
      this.inc(source().samplesPersisted);
    } });
  }

  /** A device logged in; `enrolled` when this login was its first. */
  deviceLogin(enrolled = false): void {
    this.#logins.inc();
    if (!enrolled) this.#reconnects.inc();
  }

  #exposition: (() => Promise<string>) | undefined;

  /** In a node of several worker processes, scrapes show the whole node's figures (server/cluster). */
  exposeThrough(exposition: () => Promise<string>): void {
    this.#exposition = exposition;
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.#exposition ? this.#exposition() : this.registry.metrics();
  }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * GET /metrics in the Prometheus text format. Scrapers carry no console session, so it is open to
 * loopback and, elsewhere, to a bearer token from METRICS_TOKEN; anyone else gets 403.
 */
export async function metricsRoute(app: FastifyInstance, { metrics, token = process.env.METRICS_TOKEN }: { readonly metrics: GatewayMetrics; readonly token?: string | undefined }): Promise<void> {
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const bearer = req.headers.authorization === `Bearer ${token ?? ''}` && token !== undefined && token !== '';
    if (!LOOPBACK.has(req.ip) && !bearer) return reply.code(403).type('text/plain').send('Forbidden');
    return reply.type(metrics.registry.contentType).send(await metrics.text());
  });
}
