import { filter, firstValueFrom, lastValueFrom, type Observable, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wsTransport } from '../../agent/ws-transport.ts';
import { DEFAULT_FLEET, Fleet } from '../../agent/simulator/fleet.ts';
import { CloseCode, Command, type ConnectionState, type Envelope, OnlineState, ProtocolEngine, Result, systemClock } from '../../protocol/index.ts';
import { dbTargets } from '../support/databases.ts';
import { api, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

function memorySecrets() {
  let saved: Record<string, string> = {};
  return { load: () => ({ ...saved }), save: (s: Record<string, string>) => void (saved = { ...s }) };
}

function consoleEngine(ts: TestServer, query: string): ProtocolEngine {
  const wsUrl = ts.server.url.replace('http', 'ws');
  return new ProtocolEngine({ url: () => `${wsUrl}/websocket?${query}`, transport: wsTransport(), idPrefix: 'c' });
}

function until<T>(source: Observable<T>, predicate: (v: T) => boolean): Promise<T> {
  return firstValueFrom(source.pipe(filter(predicate)));
}

const opened = (s: ConnectionState) => s.status === 'open';

for (const target of targets) {
  describe.skipIf(!target.available)(`walking skeleton over real sockets (${target.name})`, () => {
    let ts: TestServer;
    let fleet: Fleet;
    let login: { token: string; accountId: number; orgId: number };

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      fleet = new Fleet({
        ...DEFAULT_FLEET,
        gatewayUrl: ts.server.deviceSocketUrl,
        enrollKey: ts.server.seeded.enrollKey,
        count: 5,
        churnEveryMs: 0,
        rebootDownMs: 300,
        transport: wsTransport(),
        clock: systemClock,
        secrets: memorySecrets(),
      });
      fleet.start();
      await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
      login = await loginAsAdmin(ts);
    });

    afterAll(async () => {
      fleet?.stop();
      await ts?.stop();
    });

    it('enrols every simulated device and lists them online, in pages', async () => {
      const page = await api<{ total: number; list: { sn: string; onlineState: number }[] }>(ts.server.url, 'POST', '/device/list', {
        token: login.token,
        body: { pageNum: 1, pageSize: 10 },
      });
      expect(page.code).toBe(20000);
      expect(page.data.total).toBe(5);
      expect(page.data.list.every((d) => d.onlineState === OnlineState.Online)).toBe(true);
      expect(fleet.devices.every((d) => d.secret !== undefined)).toBe(true);
    });

    it('refuses the device list without a session, with the login-expiry code', async () => {
      const res = await api(ts.server.url, 'POST', '/device/list', { body: {} });
      expect(res).toMatchObject({ code: 3, message: 'Permission denied or Session expire' });
    });

    it('reboots a device: result 0, then the console sees it go offline and come back', async () => {
      const engine = consoleEngine(ts, `token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`);
      engine.start();
      await until(engine.connection$, opened);
      const sn = fleet.devices[0]?.sn ?? '';
      const presence = lastValueFrom(
        engine.messages$.pipe(
          filter((e: Envelope) => e.msgId === Command.DevicePresence && e.sn === sn),
          take(2),
          toArray(),
        ),
      );
      const reply = await lastValueFrom(engine.request(Command.Reboot, { sn }));
      expect(reply).toMatchObject({ kind: 'result', reply: { msgId: Command.Reboot, sn, result: Result.Success } });
      const states = (await presence).map((e) => (e.data as { onlineState: number }).onlineState);
      expect(states).toEqual([OnlineState.Offline, OnlineState.Online]);
      engine.stop();
    });

    it('answers result 5 at once for an offline device, and refuses devices outside the caller scope', async () => {
      const engine = consoleEngine(ts, `token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`);
      engine.start();
      await until(engine.connection$, opened);
      const device = fleet.devices[1];
      if (!device) throw new Error('no device');
      device.stop();
      await until(
        engine.messages$,
        (e) => e.msgId === Command.DevicePresence && e.sn === device.sn && (e.data as { onlineState: number }).onlineState === OnlineState.Offline,
      );
      const offline = await lastValueFrom(engine.request(Command.Reboot, { sn: device.sn }));
      expect(offline.reply.result).toBe(Result.DeviceOffline);
      const unknown = await lastValueFrom(engine.request(Command.Reboot, { sn: 'NOPE-404' }));
      expect(unknown.reply).toMatchObject({ result: Result.Fail, data: { message: 'Permission denied or Session expire' } });
      const unrecognised = await lastValueFrom(engine.request(12345, { sn: device.sn }));
      expect(unrecognised.reply.result).toBe(Result.UnknownMessageId);
      device.start();
      await device.waitLoggedIn();
      engine.stop();
    });

    it('rejects a console socket with a bad token for good (close 4001)', async () => {
      const engine = consoleEngine(ts, `token=bogus&accountId=${login.accountId}&orgId=${login.orgId}`);
      engine.start();
      const stopped = await until(engine.connection$, (s) => s.status === 'stopped');
      expect(stopped).toEqual({ status: 'stopped', reason: 'rejected', closeCode: CloseCode.Unauthorized });
    });

    it('rejects a device with a wrong secret', async () => {
      const wsUrl = ts.server.deviceSocketUrl;
      const engine = new ProtocolEngine({ url: () => `${wsUrl}?sn=${fleet.devices[2]?.sn ?? ''}&secret=wrong`, transport: wsTransport() });
      engine.start();
      const stopped = await until(engine.connection$, (s) => s.status === 'stopped');
      expect(stopped).toMatchObject({ reason: 'rejected', closeCode: CloseCode.Unauthorized });
    });

    it('logout ends the session at once for HTTP and closes its sockets (close 4002)', async () => {
      const own = await loginAsAdmin(ts);
      const engine = consoleEngine(ts, `token=${own.token}&accountId=${own.accountId}&orgId=${own.orgId}`);
      engine.start();
      await until(engine.connection$, opened);
      const out = await api(ts.server.url, 'GET', '/home/logout', { token: own.token });
      expect(out.code).toBe(20000);
      const stopped = await until(engine.connection$, (s) => s.status === 'stopped');
      expect(stopped).toMatchObject({ reason: 'rejected', closeCode: CloseCode.SessionEnded });
      const after = await api(ts.server.url, 'GET', '/home/getAccountDetail', { token: own.token });
      expect(after.code).toBe(3);
    });
  });
}
