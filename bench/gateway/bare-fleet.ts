import { type ChildProcess, fork } from 'node:child_process';
import WebSocket, { WebSocketServer } from 'ws';
import { loopbackSource, sourcesFor } from './swarm-process.ts';

// Baselines of the gateway bench made of bare `ws` processes, forked from this file: servers that only
// hold connections, and client processes that open many connections from loopback source addresses of
// their own block, spread as a device swarm's, and (BARE_ECHO=1) send every frame they get straight back.

type BareReply =
  | { readonly kind: 'listening'; readonly port: number }
  | { readonly kind: 'connected'; readonly count: number; readonly failed: number }
  | { readonly kind: 'broadcasted'; readonly ms: number; readonly replies: number };

/** Forks a bare server or a bare client process; `env` carries BARE_URL, BARE_COUNT, BARE_FIRST_SOURCE and BARE_ECHO for clients. */
export function forkBare(role: 'bare-server' | 'bare-clients' | 'bare-broadcaster', env: Record<string, string>): ChildProcess {
  return fork(import.meta.filename, [], { env: { ...process.env, ...env, BENCH_BARE_ROLE: role }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** The next message of `kind` from a forked bare process. */
export function replyOf<K extends BareReply['kind']>(child: ChildProcess, kind: K): Promise<Extract<BareReply, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error(`bare ${kind} process exited`));
    child.once('exit', onExit);
    const onMessage = (m: BareReply) => {
      if (m.kind !== kind) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as Extract<BareReply, { kind: K }>);
    };
    child.on('message', onMessage);
  });
}

/** A bare ws server process: accepts connections and keeps them, nothing else. */
function runBareServer(): void {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  wss.on('connection', (ws) => ws.on('error', () => undefined));
  wss.once('listening', () => process.send?.({ kind: 'listening', port: (wss.address() as { port: number }).port } satisfies BareReply));
  process.on('disconnect', () => process.exit(0));
}

/**
 * A bare ws server process that, asked `broadcast`, sends one frame (`frame`, the size of the gateway's
 * push-text command) to every connection it holds and answers once a frame has come back on each.
 */
function runBareBroadcaster(): void {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  let waiting = 0;
  let done: (() => void) | undefined;
  wss.on('connection', (ws) => {
    ws.on('error', () => undefined);
    ws.on('message', () => {
      if (--waiting === 0) done?.();
    });
  });
  wss.once('listening', () => process.send?.({ kind: 'listening', port: (wss.address() as { port: number }).port } satisfies BareReply));
  process.on('message', (m: { kind: 'broadcast'; frame: string }) => {
    const t0 = performance.now();
    waiting = wss.clients.size;
    done = () => process.send?.({ kind: 'broadcasted', ms: performance.now() - t0, replies: wss.clients.size } satisfies BareReply);
    for (const ws of wss.clients) ws.send(m.frame);
  });
  process.on('disconnect', () => process.exit(0));
}

/** A bare ws client process: opens `count` connections from loopback source addresses of its own block, spread as a swarm's. */
async function runBareClients(): Promise<void> {
  const url = String(process.env.BARE_URL);
  const count = Number(process.env.BARE_COUNT);
  const block = Number(process.env.BARE_FIRST_SOURCE);
  const echo = process.env.BARE_ECHO === '1';
  const sources = sourcesFor(count);
  const sockets: WebSocket[] = [];
  let failed = 0;
  // 1,000 at a time, like the swarm's ramp, so the accept queue is not the thing measured.
  for (let i = 0; i < count; i += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, count - i) }, (_, j) => {
      const ws = new WebSocket(url, { localAddress: loopbackSource(block, (i + j) % sources), perMessageDeflate: false });
      if (echo) ws.on('message', (d: Buffer, isBinary: boolean) => ws.send(d, { binary: isBinary }));
      sockets.push(ws);
      return new Promise<void>((resolve) => {
        ws.once('open', () => resolve());
        ws.once('error', () => {
          failed++;
          resolve();
        });
      });
    });
    await Promise.all(batch);
  }
  process.send?.({ kind: 'connected', count: sockets.length - failed, failed } satisfies BareReply);
  process.on('disconnect', () => process.exit(0));
}

const role = process.env.BENCH_BARE_ROLE;
if (role === 'bare-server') runBareServer();
else if (role === 'bare-broadcaster') runBareBroadcaster();
else if (role === 'bare-clients') await runBareClients();
