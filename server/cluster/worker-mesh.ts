import fs from 'node:fs/promises';
import net from 'node:net';
import type { BatchingPort } from '../bus/ipc-bus.ts';
import type { MeshBus } from '../bus/mesh-bus.ts';
import { socketPort } from '../bus/socket-port.ts';

/**
 * How the workers of a node link their buses to each other (mesh-bus.ts): each listens on a Unix socket
 * of its own, tells the primary, and the primary answers with the sockets of the workers that listened
 * before it, which it connects to. The primary hears these one at a time, so each pair of workers is
 * linked once, by the later of the two.
 */
export type MeshIpcMessage =
  /** Worker to primary: listening for its peers at `path`. */
  | { readonly dcc: 'mesh.listening'; readonly path: string }
  /** Primary to worker: the peers to connect to. */
  | { readonly dcc: 'mesh.connect'; readonly paths: readonly string[] };

export function isMeshIpcMessage(value: unknown): value is MeshIpcMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { dcc?: unknown; path?: unknown; paths?: unknown };
  return (m.dcc === 'mesh.listening' && typeof m.path === 'string') || (m.dcc === 'mesh.connect' && Array.isArray(m.paths) && m.paths.every((p) => typeof p === 'string'));
}

/** How long a worker starting waits for a peer's subscriptions before it serves without them. */
const HELLO_TIMEOUT_MS = 10_000;

/** Links `bus` to a socket's peer for as long as the socket lives; resolves when the peer's hello arrived (or it never will). */
function link(bus: MeshBus, socket: net.Socket): Promise<void> {
  const port = socketPort(socket);
  socket.on('error', () => socket.destroy());
  socket.on('close', () => bus.leave(port));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, HELLO_TIMEOUT_MS);
  });
  return Promise.race([bus.join(port), timeout]).finally(() => clearTimeout(timer));
}

function connect(path: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(path);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * A worker joins the node's mesh: listens at `path` (the primary chose it), then connects to the workers
 * the primary names and waits for each one's subscriptions, so that once this worker serves, it reaches
 * every device and console of the node. A peer that cannot be reached is exiting (the primary re-forks
 * it, and the new one connects here). The socket listens for the worker's life; the primary removes its
 * file when the worker exits.
 */
export async function joinWorkerMesh(bus: MeshBus, primary: BatchingPort<MeshIpcMessage>, path: string): Promise<void> {
  // A socket file left by a worker of this path that was killed (paths are not reused by the primary, but a
  // pid can be).
  await fs.rm(path, { force: true });
  const server = net.createServer((socket) => void link(bus, socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const paths = await new Promise<readonly string[]>((resolve) => {
    const stop = primary.listen((m) => {
      if (!isMeshIpcMessage(m) || m.dcc !== 'mesh.connect') return;
      stop();
      resolve(m.paths);
    });
    primary.send({ dcc: 'mesh.listening', path });
    primary.flush();
  });
  await Promise.all(paths.map((p) => connect(p).then((socket) => link(bus, socket), () => undefined)));
}
