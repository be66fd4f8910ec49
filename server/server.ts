import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import zlib from 'node:zlib';
import { type Clock, systemClock, useNativeCrc32 } from '../protocol/index.ts';
import { buildApp } from './app.ts';
import { CaptchaStore } from './auth/captcha.ts';
import { SessionStore } from './auth/sessions.ts';
import type { Config } from './config.ts';
import { type Db, type DatabaseLog, openDatabase } from './db/database.ts';
import { DeviceRepository } from './devices/repository.ts';
import { requestLogOptions } from './http/request-log.ts';
import { DEVICE_SOCKET_PATH, Gateway } from './gateway/gateway.ts';
import { randomUUID } from 'node:crypto';
import type { Bus } from './bus/bus.ts';
import { InProcessBus } from './bus/in-process-bus.ts';
import { NatsBus } from './bus/nats-bus.ts';
import { BUS_SUBJECTS } from './bus/subjects.ts';
import { seed, type SeedResult } from './seed.ts';
import { seedCardInventory } from './cards/seed-inventory.ts';

/** A running server node and what tests and the launcher need from it. */
export interface RunningServer {
  readonly app: FastifyInstance;
  readonly db: Db;
  readonly gateway: Gateway;
  readonly captcha: CaptchaStore;
  readonly seeded: SeedResult;
  /** http://host:port of the listening server. */
  readonly url: string;
  readonly deviceSocketUrl: string;
  close(): Promise<void>;
}

/** Accept queue of each worker's socket on the node's port when it runs worker processes. */
const WORKER_LISTEN_BACKLOG = 4_096;

/** What a worker process of a node (GATEWAY_WORKERS > 1) is given by its primary, which prepared the node. */
export interface WorkerRole {
  /** Unique in the cluster: the primary's node id and the worker's number. */
  readonly nodeId: string;
  /** The bus shared with the node's other workers (and other nodes, over NATS). */
  readonly bus: Bus;
  readonly seeded: SeedResult;
  /** The device repository over the worker's database (its login writes go to the node's writer). */
  readonly devices?: (db: Db) => DeviceRepository;
}

export interface StartOptions {
  readonly clock?: Clock;
  readonly pgSchema?: string;
  /** true: the request log; pino options (a level, a stream) for less or elsewhere; absent: no log. */
  readonly logger?: boolean | { readonly level?: string; readonly stream?: { write(line: string): void } };
  /** Set in a worker process: the database is migrated and seeded already, and the bus is given. */
  readonly worker?: WorkerRole;
  /** SQLite held in memory instead of the file under DATA_DIR (built-only test nodes; see DatabaseTarget.inMemory). */
  readonly sqliteInMemory?: boolean;
}

/**
 * The start-up work done once per node, before anything listens: migrations, seeding, and (alone, no
 * NATS) marking every device offline, since no device is connected to this node yet. In a cluster other
 * nodes hold devices, so their online flags stay as they are. Returns the open database.
 */
export async function prepareNode(config: Config, clock: Clock, pgSchema?: string, log?: DatabaseLog, inMemory = false): Promise<{ db: Db; seeded: SeedResult }> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgSchema: pgSchema ?? config.databaseSchema, log, inMemory });
  const seeded = await seed(db, clock, config.adminPassword);
  await seedCardInventory(db, clock);
  if (!config.natsUrl) await new DeviceRepository(db).markAllOffline(clock.now());
  return { db, seeded };
}

/**
 * A node built and not yet listening: the API answers `app.inject()` (REST tests without a socket), and
 * `listen()` opens the port for browsers, consoles and devices. `close()` releases it either way.
 */
export interface BuiltServer {
  readonly app: FastifyInstance;
  readonly db: Db;
  readonly gateway: Gateway;
  readonly captcha: CaptchaStore;
  readonly seeded: SeedResult;
  listen(): Promise<RunningServer>;
  close(): Promise<void>;
}

/** Opens the database, migrates, seeds (unless a worker), and listens with the API, console and gateway. */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const built = await buildServer(config, opts);
  try {
    return await built.listen();
  } catch (err) {
    await built.close();
    throw err;
  }
}

/** Opens the database, migrates, seeds (unless a worker), and builds the API, console and gateway without listening. */
export async function buildServer(config: Config, opts: StartOptions = {}): Promise<BuiltServer> {
  // Chunk frames the server reads itself (recordings of live view) are checked with Node's own CRC-32.
  useNativeCrc32(zlib.crc32);
  const clock = opts.clock ?? systemClock;
  // The database and the gateway exist before the HTTP app (routes command devices); they log through
  // the app's logger once that exists.
  const logTo: { app?: FastifyInstance } = {};
  const log = {
    warn: (obj: object, msg: string) => logTo.app?.log.warn(obj, msg),
    info: (obj: object, msg: string) => logTo.app?.log.info(obj, msg),
  };
  const { db, seeded } = opts.worker
    ? { db: await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgSchema: opts.pgSchema ?? config.databaseSchema, migrate: false, checkpoints: 'elsewhere', log }), seeded: opts.worker.seeded }
    : await prepareNode(config, clock, opts.pgSchema, log, opts.sqliteInMemory === true);
  const devices = opts.worker?.devices?.(db) ?? new DeviceRepository(db);
  const nodeId = opts.worker?.nodeId ?? randomUUID().slice(0, 8);
  const bus: Bus =
    opts.worker?.bus ?? (config.natsUrl ? await NatsBus.connect(config.natsUrl, `dcc-${nodeId}`, config.natsPrefix, BUS_SUBJECTS, log) : new InProcessBus(BUS_SUBJECTS, log));
  const sessions = new SessionStore(db, clock, config.sessionTtlMs);
  const captcha = new CaptchaStore(clock, bus);
  const gateway = new Gateway({
    db,
    devices,
    sessions,
    clock,
    bus,
    nodeId,
    log,
    deviceAdmissionsPerSecond: config.deviceAdmissionRate,
    deviceLoginsInFlight: config.deviceLoginsInFlight,
    deviceAdmissionWaitMs: config.deviceAdmissionWaitMs,
    clusterPresence: config.natsUrl !== undefined,
    nodeBeatMs: config.clusterBeatMs,
    nodeDeadMs: 3 * config.clusterBeatMs,
    consoleCommandRate: config.consoleCommandRate,
    consoleCommandBurst: config.consoleCommandBurst,
    recordingsDir: path.join(config.dataDir, 'recordings'),
    recordingRetentionDays: config.recordingRetentionDays,
  });
  const app = await buildApp({
    db,
    clock,
    sessions,
    captcha,
    captchaEnabled: config.loginCaptcha,
    devices,
    gateway,
    consoleDir: config.consoleDir,
    dataDir: config.dataDir,
    telemetry: config.telemetry,
    orgCreateLimit: config.orgCreateLimit,
    paymentSandbox: config.paymentSandbox,
    oidc: config.oidc,
    uploadLimits: config.uploadLimits,
    // Request URLs, error texts and messages are logged with secrets redacted (server/http/request-log.ts).
    logger: opts.logger ? { ...requestLogOptions, ...(opts.logger === true ? {} : opts.logger) } : false,
  });
  logTo.app = app;
  gateway.attach(app.server);
  const close = async () => {
    await gateway.close();
    await app.close();
    await bus.close();
    await db.destroy();
  };
  return {
    app,
    db,
    gateway,
    captcha,
    seeded,
    close,
    async listen(): Promise<RunningServer> {
      // A node of several workers is the one sized for tens of thousands of devices: a reconnecting fleet
      // overflows the default accept queue (511), and every dropped SYN costs its device a 1 s, 3 s, 7 s wait.
      // The kernel caps it at net.core.somaxconn.
      // A worker binds its own socket to the node's port (exclusive: not through the primary; reusePort: beside
      // its siblings', the kernel spreading connections over them), see listenPort in node-primary.ts.
      await app.listen({ port: config.port, host: config.host, ...(opts.worker ? { backlog: WORKER_LISTEN_BACKLOG, exclusive: true, reusePort: true } : {}) });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      const url = `http://${config.host}:${port}`;
      return { app, db, gateway, captcha, seeded, url, deviceSocketUrl: `ws://${config.host}:${port}${DEVICE_SOCKET_PATH}`, close };
    },
  };
}
