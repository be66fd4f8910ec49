import { DEFAULT_FLEET, Fleet } from '../../agent/simulator/fleet.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { systemClock } from '../../protocol/index.ts';
import type { TestServer } from './server.ts';

export interface TestFleetOptions {
  readonly count: number;
  /** How long a simulated reboot keeps a device away. */
  readonly rebootDownMs?: number;
}

/** Starts `count` simulated devices against a test server, with no random churn, and waits until all are logged in. */
export function startTestFleet(ts: TestServer, opts: TestFleetOptions): Promise<Fleet> {
  return startFleetAt({ deviceSocketUrl: ts.server.deviceSocketUrl, enrollKey: ts.server.seeded.enrollKey }, opts);
}

/** The same against any gateway (a node in another process, say), given its device socket URL and enrolment key. */
export async function startFleetAt(gateway: { deviceSocketUrl: string; enrollKey: string }, opts: TestFleetOptions): Promise<Fleet> {
  let saved: Record<string, string> = {};
  const fleet = new Fleet({
    ...DEFAULT_FLEET,
    gatewayUrl: gateway.deviceSocketUrl,
    enrollKey: gateway.enrollKey,
    count: opts.count,
    churnEveryMs: 0,
    rebootDownMs: opts.rebootDownMs ?? 1_000,
    transport: wsTransport(),
    clock: systemClock,
    secrets: { load: () => saved, save: (s) => void (saved = { ...s }) },
  });
  fleet.start();
  await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
  return fleet;
}
