import type { Bus } from '../bus/bus.ts';
import { type BusIpcMessage, ignoreSendError, primaryPort } from '../bus/ipc-bus.ts';
import { MeshBus } from '../bus/mesh-bus.ts';
import { NatsBus } from '../bus/nats-bus.ts';
import { BUS_SUBJECTS } from '../bus/subjects.ts';
import { loadConfig } from '../config.ts';
import { type LoginWriteIpcMessage, LoginWriteClient, RelayedLoginRepository } from '../devices/login-writes.ts';
import { startServer } from '../server.ts';
import { WorkerMetricsClient } from './node-metrics.ts';
import { workerSocketCap } from './socket-cap.ts';
import { PRIMARY_PUBLISHES, WorkerEnv, type WorkerLifecycleMessage } from './worker-env.ts';
import { joinWorkerMesh, type MeshIpcMessage } from './worker-mesh.ts';

// One worker process of a node (GATEWAY_WORKERS > 1), forked by server/cluster/node-primary.ts: the API
// and gateway on the port the node's workers share. The primary migrated, seeded and prints the
// launcher lines; this process only serves.
const nodeId = process.env[WorkerEnv.nodeId];
const enrollKey = process.env[WorkerEnv.enrollKey];
const meshPath = process.env[WorkerEnv.meshPath];
if (!nodeId || !enrollKey || !meshPath || !process.send) throw new Error('worker-main.ts is started by the node primary (GATEWAY_WORKERS > 1)');

const config = loadConfig();
// One channel to the primary, batched per turn, for the bus (without NATS), the mesh's set-up and the login writes.
const port = primaryPort<BusIpcMessage | LoginWriteIpcMessage | MeshIpcMessage>();
let bus: Bus;
if (config.natsUrl) bus = await NatsBus.connect(config.natsUrl, `dcc-${nodeId}`, config.natsPrefix, BUS_SUBJECTS);
else {
  // Without NATS the node's processes are one bus: linked to the primary over this channel, to every
  // other worker over a Unix socket (server/bus/mesh-bus.ts), before this worker subscribes to anything.
  const mesh = new MeshBus(BUS_SUBJECTS);
  void mesh.join(port, PRIMARY_PUBLISHES);
  await joinWorkerMesh(mesh, port, meshPath);
  bus = mesh;
}
// The node's primary writes every worker's device logins (server/devices/login-writes.ts).
const loginWrites = new LoginWriteClient(port);
const server = await startServer(config, {
  logger: process.env.LOG_REQUESTS === '1' ? true : { level: 'warn' },
  worker: { nodeId, bus, seeded: { enrollKey, generatedPassword: undefined }, devices: (db) => new RelayedLoginRepository(db, loginWrites) },
});

const cap = workerSocketCap();
if (cap !== undefined) server.app.server.maxConnections = cap;

const send = (message: object) => {
  if (process.connected) process.send?.(message, undefined, undefined, ignoreSendError);
};
const metrics = new WorkerMetricsClient(server.gateway.metrics.registry, send);
process.on('message', (m) => metrics.receive(m));
server.gateway.metrics.exposeThrough(() => metrics.scrape());
// The bus port batches per turn: the subscriptions made while starting reach the primary before it
// hears this worker is ready (the channel keeps order), as they did unbatched. (The other workers hear
// them over their own sockets, as soon as they were made.)
port.flush();
send({ dcc: 'worker.ready', url: server.url } satisfies WorkerLifecycleMessage);

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Sockets close with 1001 and devices reconnect to the node's other workers (or the re-forked one).
  await server.close().catch(() => undefined);
  process.exit(0);
}
// The primary decides when workers stop: it sends SIGTERM to drain. Ctrl-C reaches the whole process
// group, so SIGINT is left to the primary; a primary that is gone (channel closed) ends the worker too.
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => undefined);
process.on('disconnect', () => {
  loginWrites.failAll(new Error('the node primary is gone'));
  void shutdown();
});
