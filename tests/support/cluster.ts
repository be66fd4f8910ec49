import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../protocol/index.ts';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';
import { postgresReachable, TEST_PG_URL } from './databases.ts';
import { TEST_ADMIN_PASSWORD } from './server.ts';

export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

function natsReachable(): Promise<boolean> {
  const { hostname, port } = new URL(TEST_NATS_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * True when PostgreSQL and NATS answer, so a several-node test can run. Such tests skip where they are
 * absent, but never silently in CI: there their absence is an error naming the test.
 */
export async function clusterServicesAvailable(test: string): Promise<boolean> {
  const available = (await postgresReachable()) && (await natsReachable());
  if (!available && process.env.CI) throw new Error(`CI is set but PostgreSQL or NATS is not reachable for the ${test}`);
  return available;
}

export interface ClusterNodeOptions {
  /** More settings (beat period, limits); NATS_URL here replaces the shared one. */
  readonly env?: Record<string, string>;
  readonly clock?: Clock;
}

/**
 * Starts one node of a test cluster on PostgreSQL schema `pgSchema` and NATS. The schema name doubles as
 * the subject prefix, so concurrent test runs never hear each other. The node's data folder is pushed on
 * `dirs`, for the test to remove.
 */
export function startClusterNode(pgSchema: string, dirs: string[], opts: ClusterNodeOptions = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-node-'));
  dirs.push(dataDir);
  return startServer(
    loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', DATABASE_URL: TEST_PG_URL, NATS_URL: TEST_NATS_URL, NATS_PREFIX: pgSchema, ...opts.env }),
    { pgSchema, ...(opts.clock ? { clock: opts.clock } : {}) },
  );
}
