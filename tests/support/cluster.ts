import net from 'node:net';
import { postgresReachable } from './databases.ts';

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
