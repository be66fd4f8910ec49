import { Subject } from '../bus/subjects.ts';

/**
 * What the primary tells a worker process at fork, in its environment (read once at start-up). The
 * admin password the primary may have generated is not among them: only the launcher prints it.
 */
export const WorkerEnv = {
  nodeId: 'DCC_WORKER_NODE_ID',
  enrollKey: 'DCC_WORKER_ENROLL_KEY',
  /** The Unix socket this worker listens on for the node's other workers (the mesh bus, without NATS). */
  meshPath: 'DCC_WORKER_MESH_PATH',
} as const;

/** A worker's own lifecycle news to its primary (bus and metrics traffic have their own messages). */
export type WorkerLifecycleMessage = { readonly dcc: 'worker.ready'; readonly url: string };

export function isWorkerReady(value: unknown): value is WorkerLifecycleMessage {
  return typeof value === 'object' && value !== null && (value as { dcc?: unknown }).dcc === 'worker.ready';
}

/**
 * The subjects a node's primary publishes on its bus: presence, for the devices of a worker that died.
 * A worker tells the primary only of its subscriptions to these (MeshBus.join); the primary must publish
 * nothing else, or nobody would hear it.
 */
export const PRIMARY_PUBLISHES: ReadonlySet<string> = new Set([Subject.presence.name]);
