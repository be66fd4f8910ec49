import fs from 'node:fs';
import { filter, firstValueFrom, lastValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FLEET, Fleet } from '../../agent/simulator/fleet.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import {
  CloseCode,
  Command,
  type Envelope,
  fileFromDevice,
  lastFileEvent,
  newFlowId,
  OnlineState,
  Result,
  type ShellOutput,
  systemClock,
  uploadToDevice,
} from '../../protocol/index.ts';
import { type RunningServer } from '../../server/server.ts';
import { clusterServicesAvailable, startClusterNode } from '../support/cluster.ts';
import { freshPgSchema } from '../support/databases.ts';
import { api, openAdminConsole } from '../support/server.ts';

const available = await clusterServicesAvailable('cluster test');

const presenceOf = (sn: string, state: number) => (e: Envelope) =>
  e.msgId === Command.DevicePresence && e.sn === sn && (e.data as { onlineState: number }).onlineState === state;

describe.skipIf(!available)('two server nodes sharing PostgreSQL and NATS', () => {
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let fleet: Fleet;
  let dropSchema: () => Promise<void>;
  const dirs: string[] = [];

  const start = () => startClusterNode(pgSchema, dirs);
  let pgSchema = '';

  beforeAll(async () => {
    const schema = await freshPgSchema();
    pgSchema = schema.schema;
    dropSchema = schema.drop;
    nodeA = await start();
    nodeB = await start();
    let saved: Record<string, string> = {};
    fleet = new Fleet({
      ...DEFAULT_FLEET,
      gatewayUrl: nodeA.deviceSocketUrl,
      enrollKey: nodeA.seeded.enrollKey,
      count: 3,
      churnEveryMs: 0,
      transport: wsTransport(),
      clock: systemClock,
      secrets: { load: () => saved, save: (s) => void (saved = { ...s }) },
    });
    fleet.start();
    await Promise.all(fleet.devices.map((d) => d.waitLoggedIn()));
  });

  afterAll(async () => {
    fleet?.stop();
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const consoleOn = (node: RunningServer) => openAdminConsole(node);

  it('a console on node B commands a device connected to node A', async () => {
    const { engine } = await consoleOn(nodeB);
    const sn = fleet.devices[0]?.sn ?? '';
    expect(nodeA.gateway.deviceCount).toBe(3);
    expect(nodeB.gateway.deviceCount).toBe(0);
    const reply = await lastValueFrom(engine.request(Command.BaseInfo, { sn }));
    expect(reply.reply).toMatchObject({ result: Result.Success, data: { model: expect.any(String) } });
    engine.stop();
  });

  it('presence from node A reaches consoles on node B', async () => {
    const { engine } = await consoleOn(nodeB);
    const device = fleet.devices[1];
    if (!device) throw new Error('no device');
    const offline = firstValueFrom(engine.messages$.pipe(filter(presenceOf(device.sn, OnlineState.Offline))));
    const online = firstValueFrom(engine.messages$.pipe(filter(presenceOf(device.sn, OnlineState.Online))));
    device.stop();
    await offline;
    const whileOffline = await lastValueFrom(engine.request(Command.BaseInfo, { sn: device.sn }));
    expect(whileOffline.reply.result).toBe(Result.DeviceOffline);
    device.start();
    await online;
    engine.stop();
  });

  it('a console on node B runs a shell and moves files on a device connected to node A', async () => {
    const { engine } = await consoleOn(nodeB);
    const sn = fleet.devices[2]?.sn ?? '';
    const flowId = newFlowId('sh');
    expect((await lastValueFrom(engine.request(Command.Shell, { sn, flowId, data: { op: 'open' } }))).reply.result).toBe(Result.Success);
    const output: string[] = [];
    const sub = engine.flow(flowId).subscribe((e) => output.push((e.data as ShellOutput).output));
    const ran = (await lastValueFrom(engine.request(Command.Shell, { sn, flowId, data: { op: 'input', line: 'echo across nodes' } }))).reply;
    sub.unsubscribe();
    expect(ran).toMatchObject({ result: Result.Success, data: { exitCode: 0 } });
    expect(output.join('')).toBe('across nodes\n');

    const bytes = new Uint8Array(150_000).map((_, i) => (i * 17) & 0xff);
    const up = await lastFileEvent(uploadToDevice(engine, { sn, dir: 'sdcard', name: 'x.bin', bytes }));
    expect(up.reply).toMatchObject({ result: Result.Success, data: { size: bytes.length } });
    const down = await lastFileEvent(fileFromDevice(engine, { sn, msgId: Command.FileDownload, data: { path: 'sdcard/x.bin' } }));
    expect(Buffer.from(down.file?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true);
    engine.stop();
  });

  it('logout on node A closes the same session socket on node B', async () => {
    const { engine, login } = await consoleOn(nodeB);
    const stopped = firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'stopped')));
    expect((await api(nodeA.url, 'GET', '/home/logout', { token: login.token })).code).toBe(20000);
    expect(await stopped).toMatchObject({ reason: 'rejected', closeCode: CloseCode.SessionEnded });
  });
});
