import { createHash } from 'node:crypto';
import { filter, firstValueFrom, lastValueFrom, type Observable, tap, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, type DeviceFileEvent, fileFromDevice, ProtocolEngine, Result, Subprotocol, systemClock, uploadToDevice } from '../../protocol/index.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
type Done = Extract<DeviceFileEvent, { kind: 'done' }>;

/**
 * XFER-4 over real sockets: the gateway closes the console's socket while a file is on the wire (as a
 * network blip or a draining node would); the console's engine reconnects with the same session, asks
 * again on the flow, and the transfer continues from the last acknowledged chunk to a verified file.
 */
describe('transfers resume after the console socket drops (XFER-4)', () => {
  let ts: TestServer;
  let consoleEngine: ProtocolEngine;
  let device: DeviceSession;
  const SN = 'RESUME-1';

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    const url = `${ts.server.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`;
    consoleEngine = new ProtocolEngine({ url: () => url, transport: wsTransport(), subprotocols: [Subprotocol.Msgpack] });
    consoleEngine.start();
    device = createVirtualDevice({
      gatewayUrl: ts.server.deviceSocketUrl,
      sn: SN,
      enrollKey: ts.server.seeded.enrollKey,
      info: { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.10', networkType: 2 },
      transport: wsTransport(),
      clock: systemClock,
      rebootDownMs: 500,
    });
    device.start();
    await Promise.all([device.waitLoggedIn(), firstValueFrom(consoleEngine.connection$.pipe(filter((s) => s.status === 'open')))]);
  });

  afterAll(async () => {
    device?.dispose();
    consoleEngine?.stop();
    await ts?.stop();
  });

  // Runs a file operation, closing every console socket once `dropAfter` bytes have gone through.
  const withDrop = async (op: Observable<DeviceFileEvent>, dropAfter: number) => {
    let dropped = false;
    const events = await lastValueFrom(
      op.pipe(
        tap((e) => {
          if (!dropped && e.kind === 'progress' && e.bytes >= dropAfter) {
            dropped = true;
            ts.server.gateway.reconnectConsoles();
          }
        }),
        toArray(),
      ),
    );
    expect(dropped).toBe(true);
    return events;
  };

  // 6 MiB: about 96 chunks of 64 KiB, so the drop lands mid-transfer even on a fast loopback.
  const bytes = new Uint8Array(6 * 1024 * 1024).map((_, i) => (i * 13 + (i >> 11)) & 0xff);

  it('XFER-4 an upload continues after the drop and the device writes the file with its SHA-256', async () => {
    const events = await withDrop(uploadToDevice(consoleEngine, { sn: SN, dir: 'sdcard/Download', name: 'resumed.bin', bytes, timeoutMs: 120_000 }), 512 * 1024);
    const resuming = events.filter((e) => e.kind === 'resuming');
    expect(resuming.length).toBeGreaterThanOrEqual(1);
    // The progress bar resumes where the device's acknowledgements left it, not from zero.
    expect(resuming[0]?.bytes).toBeGreaterThanOrEqual(512 * 1024);
    const after = events.slice(events.indexOf(resuming[0] as DeviceFileEvent) + 1).filter((e) => e.kind === 'progress');
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((e) => e.kind === 'progress' && e.bytes >= (resuming[0]?.bytes ?? 0))).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: 'done', reply: { result: Result.Success, data: { path: 'sdcard/Download/resumed.bin', size: bytes.length, sha256: sha(bytes) } } });
  });

  it('XFER-4 a download continues after the drop and arrives whole, matching the offer\'s SHA-256', async () => {
    const events = await withDrop(fileFromDevice(consoleEngine, { sn: SN, msgId: Command.FileDownload, data: { path: 'sdcard/Download/resumed.bin' }, timeoutMs: 120_000 }), 512 * 1024);
    expect(events.some((e) => e.kind === 'resuming')).toBe(true);
    const done = events.at(-1) as Done;
    expect(done.reply.result).toBe(Result.Success);
    expect(done.file?.sha256).toBe(sha(bytes));
    expect(Buffer.from(done.file?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true);
  });
});
