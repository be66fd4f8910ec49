import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_FLEET, Fleet } from '../../agent/simulator/fleet.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { OnlineState, systemClock } from '../../protocol/index.ts';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';

const DEVICES = 2_000;
/** Below the rate the fleet returns at (2,000 devices in a 2-4 s first window), so some wait their turn. */
const ADMISSIONS_PER_SECOND = 300;

async function allLoggedIn(fleet: Fleet): Promise<void> {
  await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
}

describe('reconnect storm', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storm-'));
  let server: RunningServer | undefined;
  let fleet: Fleet | undefined;

  afterAll(async () => {
    fleet?.stop();
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`${DEVICES} devices converge to all online after a server restart, paced by the admission rate, with no duplicate sessions`, { timeout: 180_000 }, async () => {
    const env = { DATA_DIR: dataDir, ADMIN_PASSWORD: 'Test_pass_1', SIM_DEVICES: '0' };
    server = await startServer(loadConfig({ ...env, PORT: '0' }));
    const port = new URL(server.url).port;
    let saved: Record<string, string> = {};
    fleet = new Fleet({
      ...DEFAULT_FLEET,
      gatewayUrl: server.deviceSocketUrl,
      enrollKey: server.seeded.enrollKey,
      count: DEVICES,
      churnEveryMs: 0,
      rampBatch: 200,
      transport: wsTransport(),
      clock: systemClock,
      secrets: { load: () => saved, save: (s) => void (saved = { ...s }) },
    });
    fleet.start();
    await allLoggedIn(fleet);
    expect(server.gateway.deviceCount).toBe(DEVICES);

    // The node dies and comes back on the same port and database: every device reconnects at once. The
    // node comes back admitting fewer devices a second than return, so the storm has to be worked through.
    await server.close();
    await Promise.all(fleet.devices.map((d) => firstValueFrom(d.loggedIn$.pipe(filter((up) => !up)))));
    server = await startServer(loadConfig({ ...env, PORT: port, DEVICE_ADMISSION_RATE: String(ADMISSIONS_PER_SECOND) }));
    await allLoggedIn(fleet);
    expect(server.gateway.deviceCount).toBe(DEVICES);
    const metrics = await server.gateway.metrics.text();
    const figure = (name: string) => Number(metrics.split('\n').find((l) => l.startsWith(`${name} `))?.split(' ')[1]);
    // The gate paced the storm: devices past the rate waited their turn (a few may also have been turned away).
    expect(figure('dcc_device_admissions_waited_total')).toBeGreaterThan(0);
    expect(figure('dcc_device_logins_total')).toBe(DEVICES); // one session per device: no echoes
    const online = await server.db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('online_state', '=', OnlineState.Online)
      .executeTakeFirstOrThrow();
    expect(Number(online.n)).toBe(DEVICES);
    const rows = await server.db.selectFrom('devices').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(DEVICES); // each device enrolled once, then logged in with its secret
  });
});
