import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../../agent/simulator/fleet.ts';
import { ChunkFlag, Command, type ProtocolEngine, Result, type StartStreamReply } from '../../protocol/index.ts';
import { startFleetAt } from '../support/fleet.ts';
import { startAdminConsole, startWorkerNode, type WorkerNode } from '../support/worker-node.ts';

// Live view on a node of two worker processes (GATEWAY_WORKERS=2): devices and the console land on
// whichever worker the OS hands them to, so about half the devices are held by the worker without the
// console. LIVE-2 serves those over the node's bus: every device's stream must reach the console.
const DEVICES = 8;

describe('live view on a node of two worker processes (LIVE-2 over the workers\' bus)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-workers-'));
  let node: WorkerNode | undefined;
  let fleet: Fleet;
  let engine: ProtocolEngine;

  beforeAll(async () => {
    node = await startWorkerNode(dataDir);
    fleet = await startFleetAt(node, { count: DEVICES });
    engine = await startAdminConsole(node.url);
    await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
  }, 30_000);

  afterAll(async () => {
    engine?.stop();
    fleet?.stop();
    await node?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('LIVE-2 the console watches every device, whichever worker holds it, starting at a key frame', async () => {
    for (const device of fleet.devices) {
      const frames = firstValueFrom(engine.chunks$.pipe(take(5), toArray()));
      const { reply } = await lastValueFrom(engine.request(Command.StartStream, { sn: device.sn, data: { quality: 'sub' } }));
      expect(reply.result, `live view of ${device.sn}`).toBe(Result.Success);
      const flowId = (reply.data as StartStreamReply).flowId;
      const got = await frames;
      expect(got.every((c) => c.flowId === flowId)).toBe(true);
      expect((got[0]?.flags ?? 0) & ChunkFlag.KeyFrame).toBe(ChunkFlag.KeyFrame);
      await lastValueFrom(engine.request(Command.StopStream, { sn: device.sn, data: { flowId } }));
    }
  });
});
