import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { ProtocolEngine } from '../../protocol/index.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { api, type ConsoleLogin, consoleAt, TEST_ADMIN_PASSWORD } from './server.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** A node of worker processes started the way an operator starts it (server/main.ts), in a child process. */
export interface WorkerNode {
  readonly primary: ChildProcess;
  /** http://host:port of the node. */
  readonly url: string;
  readonly deviceSocketUrl: string;
  readonly enrollKey: string;
  /** Everything the node printed so far. */
  output(): string;
  /** SIGTERM, then SIGKILL to the whole process group if it has not exited within 10 s. */
  stop(): Promise<void>;
}

/**
 * Starts a node of `workers` processes (1: a single server process) on the embedded database in
 * `dataDir` (unless `env` names a DATABASE_URL), on `port` (0: any free one), resolving once it prints its
 * launcher lines.
 */
export async function startWorkerNode(dataDir: string, workers = 2, port = 0, env: Record<string, string> = {}): Promise<WorkerNode> {
  const primary = spawn(process.execPath, [path.join(root, 'server/main.ts')], {
    cwd: root,
    // Its own process group, so a failed test can still end the primary and its workers together.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GATEWAY_WORKERS: String(workers), PORT: String(port), DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', LOGIN_CAPTCHA: 'off', NATS_URL: '', DATABASE_URL: '', ...env },
  });
  let output = '';
  const text = await new Promise<string>((resolve, reject) => {
    const onData = (b: Buffer) => {
      output += b.toString();
      if (/Enrolment key[^:]*: (\S+)/.test(output) && /Console:\s+http/.test(output)) resolve(output);
    };
    primary.stdout?.on('data', onData);
    primary.stderr?.on('data', onData);
    primary.once('exit', () => reject(new Error(`the node exited:\n${output}`)));
  });
  const url = /Console:\s+(http:\/\/\S+)\/user\//.exec(text)?.[1] ?? '';
  return {
    primary,
    url,
    deviceSocketUrl: `${url.replace('http', 'ws')}/device/websocket`,
    enrollKey: /Enrolment key[^:]*: (\S+)/.exec(text)?.[1] ?? '',
    output: () => output,
    stop: async () => {
      if (primary.exitCode !== null || primary.signalCode !== null) return;
      const exited = new Promise((r) => primary.once('exit', r));
      primary.kill('SIGTERM');
      const timer = setTimeout(() => primary.pid && process.kill(-primary.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Logs in as the seeded admin over HTTP on a node started with LOGIN_CAPTCHA=off. */
export async function adminLoginAt(url: string): Promise<{ token: string; id: number; org: { id: number } }> {
  return loginAnswerAt(url, 'admin', TEST_ADMIN_PASSWORD);
}

/** Logs in as `account` on a node started with LOGIN_CAPTCHA=off; what a console socket is opened with. */
export async function loginAt(url: string, account: string, password: string): Promise<ConsoleLogin> {
  const data = await loginAnswerAt(url, account, password);
  return { token: data.token, accountId: data.id, orgId: data.org.id };
}

async function loginAnswerAt(url: string, account: string, password: string): Promise<{ token: string; id: number; org: { id: number } }> {
  const login = await api<{ token: string; id: number; org: { id: number } }>(url, 'POST', '/login/userLogin', {
    body: { username: account, password: clientPasswordHash(password), id: '', authCode: '' },
  });
  if (login.code !== 20000) throw new Error(`login as ${account} failed: ${JSON.stringify(login)}`);
  return login.data;
}

/** Logs in as the seeded admin over HTTP and starts a console engine on the node's realtime socket (not yet open). */
export async function startAdminConsole(url: string): Promise<ProtocolEngine> {
  return consoleAt(url, await loginAt(url, 'admin', TEST_ADMIN_PASSWORD));
}
