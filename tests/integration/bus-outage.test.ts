import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { Command, type ProtocolEngine, Result } from '../../protocol/index.ts';
import { NatsBus } from '../../server/bus/nats-bus.ts';
import { BUS_SUBJECTS, type BusSubject, type CaptchaSpent } from '../../server/bus/subjects.ts';
import { startVirtualDevices } from '../support/fleet.ts';
import { freePort, killNats, NATS_SERVER, startNats } from '../support/nats-server.ts';
import { loginAsAdmin, openAdminConsole, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Losing NATS must not end a node: it goes on alone (its own bus messages delivered on the node, logins
 * and devices served), says so in its log, and rejoins by itself when NATS is back. The NATS server is
 * this test's own process on a free port; the shared one on 4222 is never touched.
 */
describe.skipIf(!fs.existsSync(NATS_SERVER))('NATS outage', () => {
  let port = 0;
  let nats: ChildProcess | undefined;
  let ts: TestServer;
  let peer: NatsBus;
  let consoleEngine: ProtocolEngine | undefined;
  const devices: DeviceSession[] = [];
  const logged: { msg: string }[] = [];
  const prefix = `outage${process.pid}`;

  beforeAll(async () => {
    port = await freePort();
    nats = await startNats(port);
    const url = `nats://127.0.0.1:${port}`;
    ts = await startTestServer('sqlite', { NATS_URL: url, NATS_PREFIX: prefix }, { logger: { level: 'warn', stream: { write: (line: string) => void logged.push(JSON.parse(line) as { msg: string }) } } });
    // Another node of the cluster, as far as the bus goes.
    peer = await NatsBus.connect(url, 'outage-peer', prefix, BUS_SUBJECTS, { warn: () => undefined });
  });

  afterAll(async () => {
    for (const d of devices) d.stop();
    consoleEngine?.stop();
    await peer?.close().catch(() => undefined);
    await ts?.stop();
    if (nats) await killNats(nats);
  });

  it('goes on alone while NATS is down, delivering its own bus messages, and rejoins when it is back', async () => {
    const bus = ts.server.gateway.bus;
    if (!(bus instanceof NatsBus)) throw new Error('the node is not on NATS');
    // A subject name of the test's own (no area hears it), carrying a payload of the map.
    const check: BusSubject<'captchaSpent'> = { kind: 'captchaSpent', name: 'outage.check' };
    const here: CaptchaSpent[] = [];
    const there: CaptchaSpent[] = [];
    bus.subscribe(check, (m) => here.push(m));
    peer.subscribe(check, (m) => there.push(m));
    // Both subscriptions are on the NATS server before anything is published.
    await Promise.all([bus.flush(), peer.flush()]);

    // Before: the node and its peer hear each other.
    bus.publish(check, { id: '1' });
    await vi.waitFor(() => expect(there).toEqual([{ id: '1' }]), { timeout: 10_000 });
    expect(here).toEqual([{ id: '1' }]);

    if (nats) await killNats(nats);
    await vi.waitFor(() => expect(logged.map((l) => l.msg)).toContain('NATS connection lost: bus messages stay on this node until it is back'), { timeout: 10_000 });

    // During: its own subscribers hear it at once; the peer cannot.
    bus.publish(check, { id: '2' });
    expect(here).toEqual([{ id: '1' }, { id: '2' }]);
    // A login, a device logging in and a command to it all work on this node alone.
    const { engine } = await openAdminConsole(ts.server);
    consoleEngine = engine;
    await startVirtualDevices(ts, [`OUTAGE-${process.pid}`], devices);
    const reply = (await lastValueFrom(engine.request(Command.BaseInfo, { sn: `OUTAGE-${process.pid}` }))).reply;
    expect(reply.result).toBe(Result.Success);
    expect((await loginAsAdmin(ts)).token).toBeTruthy();

    // After: NATS is back on the same address; the node reconnects by itself, subscriptions and all.
    nats = await startNats(port);
    await vi.waitFor(() => expect(logged.map((l) => l.msg)).toContain('NATS connection back: bus messages reach the cluster again'), { timeout: 15_000 });
    await vi.waitFor(
      async () => {
        peer.publish(check, { id: '3' });
        await peer.flush();
        expect(here).toContainEqual({ id: '3' });
      },
      { timeout: 15_000, interval: 200 },
    );
    bus.publish(check, { id: '4' });
    await vi.waitFor(() => expect(there).toContainEqual({ id: '4' }), { timeout: 10_000 });
    // What the node said while alone stayed on the node.
    expect(there).not.toContainEqual({ id: '2' });
  });

  it('closes without waiting for a NATS that is gone', async () => {
    const lonely = await NatsBus.connect(`nats://127.0.0.1:${port}`, 'outage-lonely', prefix, BUS_SUBJECTS, { warn: () => undefined });
    const lost = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (!lonely.connected) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    if (nats) await killNats(nats);
    await lost;
    await lonely.close();
    nats = await startNats(port);
  });
});
