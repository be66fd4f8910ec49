import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { wsTransport } from '../../agent/ws-transport.ts';
import { ProtocolEngine } from '../../protocol/index.ts';
import { keepCaptchaAnswersForTests } from '../../server/auth/captcha.ts';
import { loadConfig, type Config } from '../../server/config.ts';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { buildServer, type RunningServer, type StartOptions, startServer } from '../../server/server.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { freshPgSchema, TEST_PG_URL } from './databases.ts';

export const TEST_ADMIN_PASSWORD = 'Test_pass_1';

// Servers started in a test process keep the answers of the captchas they draw, so that tests can play a
// person reading the image (RunningServer.captcha.peekForTest); a production process never keeps them.
keepCaptchaAnswersForTests();

export interface TestServer {
  readonly server: RunningServer;
  readonly config: Config;
  stop(): Promise<void>;
}

/** What logging in needs of a server: a test server, or a node a test started itself. */
export type ServerOf = Pick<TestServer, 'server'>;

/** Apps of servers built without a port, by their `inject://` base: {@link api} answers through `app.inject()`. */
const injected = new Map<string, FastifyInstance>();
let injectedCount = 0;

/**
 * A server built but not listening, for REST-only tests: every helper here (api, client, loginAs) reaches
 * it through Fastify's `inject()`, without a socket. Its `url` is an `inject://` name, not an address.
 * SQLite is held in memory (nothing of the database is written to disk); PostgreSQL gets a fresh schema.
 */
export function injectTestServer(db: 'sqlite' | 'postgres' = 'sqlite', env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(db, env, { sqliteInMemory: db === 'sqlite' }, false);
}

/** Starts a server on a free port with a throwaway database (SQLite in a temp dir, or a fresh PostgreSQL schema). */
export async function startTestServer(db: 'sqlite' | 'postgres' = 'sqlite', env: Record<string, string> = {}, start: Pick<StartOptions, 'logger' | 'sqliteInMemory'> = {}, listen = true): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-test-'));
  const pgSchema = db === 'postgres' ? await freshPgSchema() : undefined;
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    SIM_DEVICES: '0',
    // Lets parallel workers test their own console build (vite build --outDir elsewhere).
    ...(process.env.CONSOLE_DIR ? { CONSOLE_DIR: process.env.CONSOLE_DIR } : {}),
    ...(pgSchema ? { DATABASE_URL: TEST_PG_URL } : {}),
    ...env,
  });
  let server: RunningServer;
  try {
    if (listen) server = await startServer(config, { pgSchema: pgSchema?.schema, ...start });
    else {
      const built = await buildServer(config, { pgSchema: pgSchema?.schema, ...start });
      const url = `inject://test-${++injectedCount}`;
      injected.set(url, built.app);
      server = { ...built, url, deviceSocketUrl: '', close: () => (injected.delete(url), built.close()) };
    }
  } catch (err) {
    // A schema left behind holds Kysely's migration tables, and Kysely's migrator looks for those in
    // every schema: one leftover makes every later PostgreSQL run fail to migrate.
    await pgSchema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    server,
    config,
    async stop() {
      await server.close();
      await pgSchema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Envelope<T> {
  code: number;
  data: T;
  message: string;
}

/** Calls the API the way the console does and returns the whole envelope. */
export async function api<T>(base: string, method: 'GET' | 'POST' | 'DELETE', url: string, opts: { token?: string; body?: unknown } = {}): Promise<Envelope<T>> {
  const headers = { ...(opts.token ? { 'X-Token': opts.token } : {}), ...(opts.body === undefined ? {} : { 'Content-Type': 'application/json' }) };
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const app = injected.get(base);
  if (app) return (await app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body }) })).json<Envelope<T>>();
  const res = await fetch(`${base}${url}`, { method, headers, body });
  return (await res.json()) as Envelope<T>;
}

/**
 * `fetch(base + url, init)` against a test server: through `app.inject()` for one built without a port
 * ({@link injectTestServer}), over the network otherwise. For tests that read a raw answer (status,
 * headers, a CSV or a body that is not the envelope) or send a raw body.
 */
export async function fetchFrom(base: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  const app = injected.get(base);
  if (!app) return fetch(`${base}${url}`, init);
  const res = await app.inject({ method: (init.method ?? 'GET') as HTTPMethods, url, headers: init.headers ?? {}, ...(init.body === undefined ? {} : { payload: init.body }) });
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) headers.append(name, String(v));
  const empty = res.statusCode === 204 || res.statusCode === 304 || init.method === 'HEAD';
  return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
}

/** Logs in as admin, solving the captcha the way a person reading the image would. */
export async function loginAsAdmin(ts: ServerOf): Promise<{ token: string; accountId: number; orgId: number }> {
  return loginAs(ts, 'admin', TEST_ADMIN_PASSWORD);
}

/** Logs in as any account with its typed password, solving the captcha as {@link loginAsAdmin} does. */
export async function loginAs(ts: ServerOf, account: string, password: string): Promise<{ token: string; accountId: number; orgId: number }> {
  const res = await tryLogin(ts, account, password);
  if (res.code !== 20000) throw new Error(`login as ${account} failed: ${res.message}`);
  return { token: res.data.token, accountId: res.data.id, orgId: res.data.org.id };
}

/** A console engine on a server's realtime socket, logged in as admin, once the socket is open. */
export async function openAdminConsole(server: RunningServer): Promise<{ engine: ProtocolEngine; login: ConsoleLogin }> {
  const login = await loginAsAdmin({ server });
  return { engine: await openConsole(server.url, login), login };
}

/** What a console socket is opened with: the login answer's token, account id and organisation id. */
export interface ConsoleLogin {
  readonly token: string;
  readonly accountId: number;
  readonly orgId: number;
}

/** A started console engine for `login` on the server at `baseUrl` (http URL); not yet open. */
export function consoleAt(baseUrl: string, login: ConsoleLogin): ProtocolEngine {
  const engine = new ProtocolEngine({
    url: () => `${baseUrl.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
    transport: wsTransport(),
    idPrefix: 'c',
  });
  engine.start();
  return engine;
}

/** A console engine for `login`, once its socket is open. */
export async function openConsole(baseUrl: string, login: ConsoleLogin): Promise<ProtocolEngine> {
  const engine = consoleAt(baseUrl, login);
  await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
  return engine;
}

/** One login attempt with a solved captcha; the whole envelope, for tests that expect a refusal. */
export async function tryLogin(ts: ServerOf, account: string, password: string) {
  const base = ts.server.url;
  const captcha = await api<{ id: string }>(base, 'GET', '/login/captcha');
  const answer = ts.server.captcha.peekForTest(captcha.data.id) ?? '';
  return api<{ token: string; id: number; org: { id: number } }>(base, 'POST', '/login/userLogin', {
    body: { username: account, id: captcha.data.id, password: clientPasswordHash(password), authCode: answer },
  });
}
