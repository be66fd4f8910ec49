import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

/*
 * A nats-server of a test's own on a free port, so a test can stop and start it without touching the
 * machine's shared one on 4222.
 */
/** Debian's nats-server; tests that need one of their own skip where it is missing. */
export const NATS_SERVER = '/usr/sbin/nats-server';

/** A TCP port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const address = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/** A nats-server of this test only, listening once the promise resolves. */
export async function startNats(port: number): Promise<ChildProcess> {
  const proc = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    proc.stderr?.on('data', (b: Buffer) => {
      output += b.toString();
      if (output.includes('Server is ready')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`nats-server exited (${String(code)}): ${output}`)));
  });
  return proc;
}

/** Kills a nats-server of a test and waits for it to exit. */
export async function killNats(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

/**
 * A TCP relay in front of a nats-server, so one node's link to the bus can be cut while the others keep
 * theirs: `cut()` drops its connections and stops listening, `restore()` listens again on the same port.
 */
export class CuttableLink {
  readonly port: number;
  readonly #target: number;
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;

  private constructor(port: number, target: number) {
    this.port = port;
    this.#target = target;
  }

  static async open(target: number): Promise<CuttableLink> {
    const link = new CuttableLink(await freePort(), target);
    await link.restore();
    return link;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async restore(): Promise<void> {
    if (this.#server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.#target, '127.0.0.1');
      for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
        this.#sockets.add(a);
        a.pipe(b);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.#sockets.delete(a);
          b.destroy();
        });
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.#server = server;
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
