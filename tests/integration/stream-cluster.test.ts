import fs from 'node:fs';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSession } from '../../agent/device-session.ts';
import { createVirtualDevice } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { type Chunk, ChunkFlag, Command, ProtocolEngine, Result, type StartStreamReply, systemClock } from '../../protocol/index.ts';
import { type RunningServer } from '../../server/server.ts';
import { clusterServicesAvailable, startClusterNode } from '../support/cluster.ts';
import { freshPgSchema } from '../support/databases.ts';
import { loginAsAdmin, type TestServer } from '../support/server.ts';

const available = await clusterServicesAvailable('live view cluster test');

/** Consecutive frames of one stream, starting at a key frame. */
function expectStreamFrames(frames: readonly Chunk[], flowId: string): void {
  expect(frames.every((c) => c.flowId === flowId)).toBe(true);
  expect((frames[0]?.flags ?? 0) & ChunkFlag.KeyFrame).toBe(ChunkFlag.KeyFrame);
  for (let i = 1; i < frames.length; i++) expect(frames[i]?.seq).toBe((frames[i - 1]?.seq ?? 0) + 1);
}

describe.skipIf(!available)('live view across two nodes (LIVE-2): a console on node B watches a device held by node A', () => {
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let device: DeviceSession;
  let dropSchema: () => Promise<void>;
  let pgSchema = '';
  const dirs: string[] = [];
  const engines: ProtocolEngine[] = [];
  const SN = 'LIVE-CLUSTER-1';

  const start = () => startClusterNode(pgSchema, dirs);

  const consoleOn = async (node: RunningServer) => {
    const login = await loginAsAdmin({ server: node } as TestServer);
    const engine = new ProtocolEngine({
      url: () => `${node.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
      transport: wsTransport(),
    });
    engine.start();
    engines.push(engine);
    await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
    return engine;
  };
  const startOn = async (engine: ProtocolEngine) => (await lastValueFrom(engine.request(Command.StartStream, { sn: SN, data: { quality: 'main' } }))).reply;
  const stopOn = (engine: ProtocolEngine, flowId: string) => lastValueFrom(engine.request(Command.StopStream, { sn: SN, data: { flowId } }));

  beforeAll(async () => {
    const schema = await freshPgSchema();
    pgSchema = schema.schema;
    dropSchema = schema.drop;
    nodeA = await start();
    nodeB = await start();
    device = createVirtualDevice({
      gatewayUrl: nodeA.deviceSocketUrl,
      sn: SN,
      enrollKey: nodeA.seeded.enrollKey,
      info: { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.01', networkType: 2 },
      transport: wsTransport(),
      clock: systemClock,
      rebootDownMs: 500,
      telemetry: false,
    });
    device.start();
    await device.waitLoggedIn();
  });

  afterAll(async () => {
    for (const e of engines) e.stop();
    device?.dispose();
    await nodeA?.close();
    await nodeB?.close();
    await dropSchema?.();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('LIVE-2 the device encodes once; node A fans its frames out to its own console and over the bus to node B', async () => {
    const onB = await consoleOn(nodeB);
    const onB2 = await consoleOn(nodeB);
    const onA = await consoleOn(nodeA);
    expect(nodeB.gateway.deviceCount).toBe(0);

    // The first viewer is on the node without the device: node A starts the stream for it.
    const framesB = firstValueFrom(onB.chunks$.pipe(take(20), toArray()));
    const fromB = await startOn(onB);
    expect(fromB).toMatchObject({ result: Result.Success, data: { codec: 'h264', width: 320, height: 240, fps: 30 } });
    const flowId = (fromB.data as StartStreamReply).flowId;
    expectStreamFrames(await framesB, flowId);

    // A second console on B and one on A join the same device stream.
    const fromB2 = await startOn(onB2);
    const fromA = await startOn(onA);
    expect((fromB2.data as StartStreamReply).flowId).toBe(flowId);
    expect((fromA.data as StartStreamReply).flowId).toBe(flowId);
    expect(nodeA.gateway.streams.streamCount).toBe(1);
    expect(nodeA.gateway.streams.viewersOf(flowId)).toHaveLength(1);
    expect(nodeB.gateway.streams.viewersOf(flowId)).toHaveLength(2);
    const [a, b2] = await Promise.all([firstValueFrom(onA.chunks(flowId).pipe(take(10), toArray())), firstValueFrom(onB2.chunks(flowId).pipe(take(10), toArray()))]);
    expectStreamFrames(a, flowId);
    expectStreamFrames(b2, flowId);
    // B's viewers are served under the same drop policy, by their own node.
    expect(nodeB.gateway.streams.viewersOf(flowId).every((v) => v.sent > 0)).toBe(true);

    // Node B's consoles leave: the stream goes on for A's console; when it leaves too the device stops.
    await stopOn(onB, flowId);
    await stopOn(onB2, flowId);
    expect(nodeB.gateway.streams.streamCount).toBe(0);
    await firstValueFrom(onA.chunks(flowId).pipe(take(3), toArray()));
    await stopOn(onA, flowId);
    // B's leave travels over the bus, so it may reach node A after A's own console has left.
    await expect.poll(() => nodeA.gateway.streams.streamCount).toBe(0);
  });

  it('LIVE-2 a console on node B hears when the device held by node A goes offline', async () => {
    const onB = await consoleOn(nodeB);
    const started = await startOn(onB);
    expect(started.result).toBe(Result.Success);
    const flowId = (started.data as StartStreamReply).flowId;
    await firstValueFrom(onB.chunks(flowId).pipe(take(2), toArray()));
    const ended = firstValueFrom(onB.messages$.pipe(filter((e) => e.msgId === Command.StopStream && e.flowId === flowId)));
    device.stop();
    expect((await ended).data).toMatchObject({ flowId, reason: 'offline' });
    expect(nodeB.gateway.streams.streamCount).toBe(0);
  });
});
