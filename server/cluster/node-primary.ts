import cluster, { type Worker } from 'node:cluster';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Clock, systemClock } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { batchingPort, type BusIpcMessage, type IpcPort } from '../bus/ipc-bus.ts';
import { MeshBus } from '../bus/mesh-bus.ts';
import { NatsBus } from '../bus/nats-bus.ts';
import { BUS_SUBJECTS, Subject } from '../bus/subjects.ts';
import type { Config } from '../config.ts';
import { LoginWriter, type LoginWriteIpcMessage, serveLoginWrites } from '../devices/login-writes.ts';
import { DeviceRepository } from '../devices/repository.ts';
import { DEVICE_SOCKET_PATH } from '../gateway/gateway.ts';
import type { SeedResult } from '../seed.ts';
import { prepareNode } from '../server.ts';
import { withServerHeapFlags } from './heap-flags.ts';
import { isMetricsIpcMessage, MetricsCollector, type MetricsSource } from './node-metrics.ts';
import { PresenceLedger } from './presence-ledger.ts';
import { isWorkerReady, WorkerEnv } from './worker-env.ts';
import { isMeshIpcMessage, type MeshIpcMessage } from './worker-mesh.ts';

/** What the launcher needs from a running node, whether one process or a primary with workers. */
export interface LaunchedNode {
  readonly url: string;
  readonly deviceSocketUrl: string;
  readonly seeded: SeedResult;
  close(): Promise<void>;
}

/** A worker's slot: its number stays when the process is re-forked, its node id does not. */
interface Slot {
  readonly number: number;
  worker: Worker;
  nodeId: string;
  port: IpcPort;
  /** The Unix socket the worker listens on for the other workers' bus links (server/cluster/worker-mesh.ts). */
  meshPath: string;
  /** Set once the worker listens there: the workers that start later connect to it. */
  meshListening: boolean;
  metrics: MetricsSource;
  startedAt: number;
  /** Listening and answering; a scrape does not wait for a worker still starting. */
  ready: boolean;
}

/** Time a worker gets to close its sockets on SIGTERM before it is killed. */
const DRAIN_TIMEOUT_MS = 10_000;
/** A worker that dies sooner than this after its start is re-forked only after a pause, not in a tight loop. */
const CRASH_LOOP_MS = 5_000;
const REFORK_PAUSE_MS = 1_000;
/** Devices of a dead worker marked offline per transaction. */
const ORPHAN_BATCH = 500;

export interface NodeOptions {
  readonly clock?: Clock;
  readonly log?: (line: string) => void;
  readonly pgSchema?: string;
}

/**
 * The primary process of a node running `config.gatewayWorkers` worker processes on one shared port
 * (node:cluster, each worker with its own listening socket). It does the once-per-node start-up work
 * (migrations, seeding, marking devices offline), introduces the workers to each other for the node's
 * bus without NATS (each pair linked directly, server/bus/mesh-bus.ts), re-forks a worker that dies after
 * marking the devices it held offline (they reconnect to the other workers), aggregates /metrics, and
 * drains the workers on close.
 */
/**
 * The port the node's workers listen on: the configured one, or for 0 one the kernel picks now. Workers do
 * not share a listening handle through the primary (cluster's round robin: the primary accepts every
 * connection and hands it to a worker, one IPC round trip each, one at a time per worker). In a login storm
 * on a loaded machine that queue held 6,600-20,000 accepted sockets, more than devices wait for a
 * handshake (10 s), so every handoff was of a socket already given up and the fleet never came back
 * (issue 21; DECISIONS, "Accepting connections"). Each worker binds its own socket to the port with
 * SO_REUSEPORT instead, and the kernel spreads new connections over them by a hash of their addresses.
 */
async function listenPort(config: Config): Promise<number> {
  if (config.port !== 0) return config.port;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port: 0, host: config.host, exclusive: true }, resolve);
  });
  const address = probe.address();
  await new Promise((r) => probe.close(r));
  if (typeof address !== 'object' || address === null) throw new Error('no port for the node');
  return address.port;
}

export async function startNodeWorkers(config: Config, opts: NodeOptions = {}): Promise<LaunchedNode> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { db, seeded } = await prepareNode(config, clock, opts.pgSchema);
  const nodeId = `${process.pid.toString(36)}${Math.floor(clock.now() / 1000).toString(36).slice(-3)}`;

  // The primary joins the node's bus (the mesh of its processes without NATS, NATS with it) only to follow
  // presence and to announce the devices of a dead worker.
  const mesh = new MeshBus(BUS_SUBJECTS);
  const bus: Bus = config.natsUrl ? await NatsBus.connect(config.natsUrl, `dcc-${nodeId}-primary`, config.natsPrefix, BUS_SUBJECTS) : mesh;
  const ledger = new PresenceLedger();
  const unfollow = ledger.follow(bus);
  const collector = new MetricsCollector();
  // Every worker's device logins are written here, in batches (server/devices/login-writes.ts).
  const loginWriter = new LoginWriter(db);

  const nodePort = await listenPort(config);
  cluster.setupPrimary({ exec: path.join(import.meta.dirname, 'worker-main.ts'), execArgv: withServerHeapFlags(process.execArgv, process.env.NODE_OPTIONS), serialization: 'advanced' });
  const slots = new Map<Worker, Slot>();
  let stopping = false;
  let forks = 0;
  /** Offline marking of dead workers' devices still being written (close waits for it). */
  const orphaning = new Set<Promise<void>>();

  const fork = (number: number): Slot => {
    const workerNodeId = `${nodeId}-${++forks}`;
    // Every fork listens on the node's one port with its own socket (SO_REUSEPORT, see listenPort): the
    // port 0 was resolved to a number once, above, so a re-forked worker joins the same port.
    // A path of its own for each fork, never reused: a killed worker's socket file may remain until the exit is heard.
    const meshPath = path.join(os.tmpdir(), `dcc-${workerNodeId}.sock`);
    const worker = cluster.fork({ [WorkerEnv.nodeId]: workerNodeId, [WorkerEnv.enrollKey]: seeded.enrollKey, [WorkerEnv.meshPath]: meshPath, PORT: String(nodePort) });
    // A worker dying between `isConnected()` and a send (a metrics scrape, a bus delivery) fails that send
    // with EPIPE as an 'error' event; unheard, it ended the primary and with it the node (seen in a
    // 100,000-device hold). The exit handler below re-forks the worker; the message is lost with it.
    // Said once per worker: a dying worker fails every send of its last moments.
    worker.once('error', (err: Error) => {
      worker.on('error', () => undefined);
      log(`Worker ${number} (pid ${worker.process.pid ?? '?'}): ${err.message}`);
    });
    // Bus deliveries and login write answers to the worker leave batched per turn (see batchingPort).
    const port = batchingPort<BusIpcMessage | LoginWriteIpcMessage | MeshIpcMessage>({
      send: (m) => {
        if (worker.isConnected()) worker.send(m);
      },
      listen: (handler) => {
        worker.on('message', handler);
        return () => worker.off('message', handler);
      },
    });
    const slot: Slot = {
      number,
      worker,
      nodeId: workerNodeId,
      port,
      meshPath,
      meshListening: false,
      metrics: { label: String(number), pid: worker.process.pid ?? 0, send: (m) => (worker.isConnected() ? worker.send(m) : undefined) },
      startedAt: clock.now(),
      ready: false,
    };
    if (!config.natsUrl) void mesh.join(port);
    serveLoginWrites(loginWriter, port);
    worker.on('message', (m: unknown) => {
      if (isWorkerReady(m)) slot.ready = true;
      if (isMeshIpcMessage(m) && m.dcc === 'mesh.listening') {
        // The workers that listened before this one; it connects to each (so each pair links once).
        const peers = [...slots.values()].filter((s) => s !== slot && s.meshListening).map((s) => s.meshPath);
        slot.meshListening = true;
        port.send({ dcc: 'mesh.connect', paths: peers });
        return;
      }
      if (!isMetricsIpcMessage(m)) return;
      if (m.dcc === 'metrics.values') collector.answered(slot.metrics, m.id, m.values);
      else if (m.dcc === 'metrics.scrape') {
        void collector.exposition([...slots.values()].filter((s) => s.ready).map((s) => s.metrics)).then((text) => slot.metrics.send({ dcc: 'metrics.text', id: m.id, text }));
      }
    });
    slots.set(worker, slot);
    return slot;
  };

  const ready = (slot: Slot) =>
    new Promise<string>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if (!isWorkerReady(m)) return;
        slot.worker.off('exit', onExit);
        slot.worker.off('message', onMessage);
        resolve(m.url);
      };
      const onExit = (code: number | null) => reject(new Error(`worker ${slot.number} exited with ${code ?? 'a signal'} before it listened`));
      slot.worker.on('message', onMessage);
      slot.worker.once('exit', onExit);
    });

  /** The devices a dead worker held go offline now, for the database and every console of the node. */
  const orphan = async (dead: Slot) => {
    const now = clock.now();
    const orphans = ledger.release(dead.nodeId);
    for (const o of orphans) bus.publish(Subject.presence, { node: dead.nodeId, sn: o.sn, orgId: o.orgId, online: false, time: now });
    // In transactions of a few hundred: one commit each instead of one per device (a worker of a large
    // node held thousands), yet short enough that the workers' own writes wait only briefly.
    for (let i = 0; i < orphans.length; i += ORPHAN_BATCH) {
      await db.transaction().execute(async (trx) => {
        const inTrx = new DeviceRepository(trx);
        for (const o of orphans.slice(i, i + ORPHAN_BATCH)) await inTrx.markOffline(o.sn, now, o.onlineSince);
      });
    }
    if (orphans.length > 0 && !stopping) log(`Worker ${dead.number} (pid ${dead.worker.process.pid ?? '?'}) died holding ${orphans.length} devices; marked offline`);
  };

  cluster.on('exit', (worker, code, signal) => {
    const dead = slots.get(worker);
    if (!dead) return;
    slots.delete(worker);
    mesh.leave(dead.port);
    // The worker's mesh socket file outlives it (it listens until it exits, however it exits).
    fs.rmSync(dead.meshPath, { force: true });
    const marking = orphan(dead).catch((err: unknown) => log(`Marking the devices of worker ${dead.number} offline failed: ${String(err)}`));
    orphaning.add(marking);
    void marking.finally(() => orphaning.delete(marking));
    if (stopping) return;
    log(`Worker ${dead.number} (pid ${worker.process.pid ?? '?'}) exited (${signal ?? code ?? ''}); starting a new one`);
    const pause = clock.now() - dead.startedAt < CRASH_LOOP_MS ? REFORK_PAUSE_MS : 0;
    setTimeout(() => {
      if (!stopping) fork(dead.number);
    }, pause);
  });

  const first = [...Array(config.gatewayWorkers).keys()].map((i) => fork(i + 1));
  let url: string;
  try {
    const urls = await Promise.all(first.map(ready));
    url = urls[0] ?? '';
  } catch (err) {
    stopping = true;
    for (const s of slots.values()) s.worker.kill('SIGKILL');
    await db.destroy();
    throw err;
  }

  return {
    url,
    deviceSocketUrl: `${url.replace(/^http/, 'ws')}${DEVICE_SOCKET_PATH}`,
    seeded,
    /** Each worker closes its sockets (devices reconnect elsewhere or later), then the primary closes. */
    async close() {
      stopping = true;
      const exits = [...slots.values()].map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.worker.isDead()) return resolve();
            const timer = setTimeout(() => s.worker.process.kill('SIGKILL'), DRAIN_TIMEOUT_MS);
            s.worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            s.worker.process.kill('SIGTERM');
          }),
      );
      await Promise.all(exits);
      await loginWriter.idle();
      await Promise.all(orphaning);
      unfollow();
      await bus.close();
      await db.destroy();
    },
  };
}
