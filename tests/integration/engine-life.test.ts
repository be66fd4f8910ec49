import net from 'node:net';
import { filter, firstValueFrom, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceSession } from '../../agent/device-session.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { CloseCode, Command, type ConnectionState, ErrorCode, ProtocolEngine, Result, systemClock } from '../../protocol/index.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

// The client engine's connection life (PROTOCOL.md LIFE-4, LIFE-5) against a real gateway over real sockets.

/**
 * A TCP relay between a client and the server whose connections the test can cut, as a network would:
 * the client sees its socket die (1006) without a close frame, and may connect again through it.
 */
function cuttableRelay(target: URL): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream).pipe(client);
    const forget = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({
        url: `ws://127.0.0.1:${port}`,
        cut: () => pairs.forEach(([a, b]) => (a.destroy(), b.destroy())),
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    }),
  );
}

const errorOf = (engine: ProtocolEngine, msgId: number, options: Parameters<ProtocolEngine['request']>[1] = {}): Promise<unknown> =>
  lastValueFrom(engine.request(msgId, options)).then(
    () => undefined,
    (err: unknown) => err,
  );
const codeOf = (err: unknown) => (err as { code?: unknown } | undefined)?.code;
const stateIs = (engine: ProtocolEngine, ok: (s: ConnectionState) => boolean) => firstValueFrom(engine.connection$.pipe(filter(ok)));

describe('client engine connection life over real sockets', () => {
  let ts: TestServer;
  let login: { token: string; accountId: number; orgId: number };
  let silent: DeviceSession;
  const consoleUrl = (base: string, token: string) => `${base}/websocket?token=${token}&accountId=${login.accountId}&orgId=${login.orgId}`;

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    login = await loginAsAdmin(ts);
    // A device that takes every push text and never answers it, so a console's request stays pending.
    silent = new DeviceSession({
      gatewayUrl: ts.server.deviceSocketUrl,
      sn: 'LIFE-SILENT',
      enrollKey: ts.server.seeded.enrollKey,
      info: () => ({ model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '1', networkType: 2 }),
      handlers: new Map([[Command.PushText, () => new Promise<never>(() => undefined)]]),
      transport: wsTransport(),
      clock: systemClock,
    });
    silent.start();
    await silent.waitLoggedIn();
  });
  afterAll(async () => {
    silent?.dispose();
    await ts?.stop();
  });

  it('LIFE-4 a request in flight when the socket dies completes with CONNECTION_LOST, and the engine reconnects', async () => {
    const relay = await cuttableRelay(new URL(ts.server.url));
    const engine = new ProtocolEngine({ url: () => consoleUrl(relay.url, login.token), transport: wsTransport(), random: () => 0 });
    try {
      engine.start();
      await stateIs(engine, (s) => s.status === 'open');
      // Sent and on the device, which never answers: only the lost connection can end it.
      const pending = errorOf(engine, Command.PushText, { sn: 'LIFE-SILENT', data: { text: 'never answered' } });
      await new Promise((r) => setImmediate(r));
      const dropped = stateIs(engine, (s) => s.status !== 'open');
      relay.cut();
      await dropped;
      expect(codeOf(await pending)).toBe(ErrorCode.ConnectionLost);
      // Nothing is left waiting, and the engine is back by itself.
      await stateIs(engine, (s) => s.status === 'open');
      expect((await lastValueFrom(engine.request(Command.Heartbeat))).reply.result).toBe(Result.Success);
    } finally {
      engine.stop();
      await relay.close();
    }
  });

  it('LIFE-5 after the server rejects the token every request fails at once with TOKEN_REJECTED, held or not, until started again with a good one', async () => {
    let token = 'not-a-token';
    const base = ts.server.url.replace('http', 'ws');
    const engine = new ProtocolEngine({ url: () => consoleUrl(base, token), transport: wsTransport() });
    try {
      const rejected = stateIs(engine, (s) => s.status === 'stopped');
      engine.start();
      expect(await rejected).toEqual({ status: 'stopped', reason: 'rejected', closeCode: CloseCode.Unauthorized });
      expect(codeOf(await errorOf(engine, Command.Heartbeat))).toBe(ErrorCode.TokenRejected);
      expect(codeOf(await errorOf(engine, Command.BaseInfo, { sn: 'LIFE-SILENT', queue: true }))).toBe(ErrorCode.TokenRejected);
      expect(engine.queuedCount).toBe(0);
      // Started again with the session's real token: requests go through.
      token = login.token;
      engine.start();
      await stateIs(engine, (s) => s.status === 'open');
      expect((await lastValueFrom(engine.request(Command.Heartbeat))).reply.result).toBe(Result.Success);
    } finally {
      engine.stop();
    }
  });
});
