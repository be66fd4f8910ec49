import type { DeviceSession } from '../../agent/device-session.ts';
import { DEFAULT_FLEET, Fleet } from '../../agent/simulator/fleet.ts';
import { createVirtualDevice, type VirtualDeviceOptions } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { systemClock } from '../../protocol/index.ts';
import type { ServerOf, TestServer } from './server.ts';

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

/**
 * Simulated devices with the given serials (one Android model, its own test's names), enrolled on a test
 * server and logged in. `into` receives each device as it is made, so a test's afterAll disposes of them
 * even if a login fails; `tuning` speeds up reconnects for tests that drop devices.
 */
export async function startVirtualDevices(
  ts: ServerOf,
  sns: readonly string[],
  into: DeviceSession[],
  opts: Pick<VirtualDeviceOptions, 'tuning' | 'pushDownload'> & { readonly systemVersion?: string; readonly rebootDownMs?: number } = {},
): Promise<void> {
  const made: DeviceSession[] = [];
  for (const sn of sns) {
    const device = createVirtualDevice({
      gatewayUrl: ts.server.deviceSocketUrl,
      sn,
      enrollKey: ts.server.seeded.enrollKey,
      info: { model: 'P10', systemType: 'android', systemVersion: opts.systemVersion ?? 'Android 12', imageVersion: '241001.01', networkType: 2 },
      transport: wsTransport(),
      clock: systemClock,
      rebootDownMs: opts.rebootDownMs ?? 1_000,
      ...(opts.tuning ? { tuning: opts.tuning } : {}),
      ...(opts.pushDownload ? { pushDownload: true } : {}),
    });
    into.push(device);
    made.push(device);
    device.start();
  }
  await Promise.all(made.map((d) => d.waitLoggedIn()));
}
