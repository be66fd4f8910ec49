import { MessageChannel } from 'node:worker_threads';
import { filter, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { ChunkFlag, Command, decodeChunk, encodeChunk, jsonCodec, Result } from '../protocol/index.ts';
import { FakeNetwork } from '../protocol/testing/fake-transport.ts';
import type { BridgePort, FromWorker, ToWorker } from './bridge-protocol.ts';
import { BridgeError, EngineClient } from './engine-client.ts';
import { EngineHost } from './engine-host.ts';

// Host and client talk over a real MessageChannel (structured clone, as between a page and its worker).
function setup() {
  const { port1, port2 } = new MessageChannel();
  const net = new FakeNetwork();
  new EngineHost(port1 as unknown as BridgePort<ToWorker, FromWorker>, net.factory);
  const client = new EngineClient(port2 as unknown as BridgePort<FromWorker, ToWorker>);
  return { net, client, close: () => (port1.close(), port2.close()) };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function openSocket(net: FakeNetwork) {
  while (net.sockets.length === 0) await tick();
  net.last.accept();
}

let teardown: (() => void) | undefined;
afterEach(() => teardown?.());

describe('engine worker bridge', () => {
  it('BRIDGE-1 carries connection state, requests with progress and results, and batched messages', async () => {
    const { net, client, close } = setup();
    teardown = close;
    client.start('ws://x/websocket?token=t');
    await openSocket(net);
    await firstValueFrom(client.connection$.pipe(filter((s) => s.status === 'open')));

    const events = lastValueFrom(client.request(Command.Reboot, { sn: 'D1' }).pipe(toArray()));
    while (net.last.sent.length === 0) await tick();
    const req = jsonCodec.decode(net.last.sent[0] ?? '');
    net.last.deliver(JSON.stringify({ msgId: Command.Reboot, cid: req.cid, result: Result.Pushing }));
    net.last.deliver(JSON.stringify({ msgId: Command.Reboot, cid: req.cid, result: Result.Success }));
    expect((await events).map((e) => [e.kind, e.reply.result])).toEqual([
      ['progress', Result.Pushing],
      ['result', Result.Success],
    ]);

    const batch = firstValueFrom(client.batches$);
    for (let i = 0; i < 50; i++) net.last.deliver(JSON.stringify({ msgId: Command.DevicePresence, sn: `D${i}`, data: { onlineState: 1 } }));
    // Fifty messages in one turn arrive on the main thread as one batch.
    expect((await batch).map((e) => e.sn)).toEqual(Array.from({ length: 50 }, (_, i) => `D${i}`));
  });

  it('BRIDGE-2 moves binary chunks both ways, transferring their buffers', async () => {
    const { net, client, close } = setup();
    teardown = close;
    client.start('ws://x/websocket');
    await openSocket(net);
    await firstValueFrom(client.connection$.pipe(filter((s) => s.status === 'open')));

    const incoming = firstValueFrom(client.chunks$);
    net.last.deliver(encodeChunk({ flowId: 'v1', seq: 7, timestamp: 1234, flags: ChunkFlag.KeyFrame, payload: new Uint8Array([1, 2, 3]) }));
    expect(await incoming).toEqual({ flowId: 'v1', seq: 7, timestamp: 1234, flags: ChunkFlag.KeyFrame, payload: new Uint8Array([1, 2, 3]) });

    const payload = new Uint8Array([9, 8, 7, 6]);
    client.sendChunk({ flowId: 'up', seq: 0, timestamp: 0, flags: ChunkFlag.Last, payload });
    // Transferred, not copied: the sender's buffer is detached.
    expect(payload.byteLength).toBe(0);
    while (net.last.sent.length === 0) await tick();
    const frame = net.last.sent[0];
    if (typeof frame === 'string' || frame === undefined) throw new Error('expected a binary frame');
    expect(decodeChunk(frame)).toMatchObject({ flowId: 'up', seq: 0, flags: ChunkFlag.Last, payload: new Uint8Array([9, 8, 7, 6]) });
  });

  it('BRIDGE-3 turns a disconnect into a typed error on the main thread', async () => {
    const { net, client, close } = setup();
    teardown = close;
    client.start('ws://x/websocket');
    await openSocket(net);
    await firstValueFrom(client.connection$.pipe(filter((s) => s.status === 'open')));
    const result = lastValueFrom(client.request(Command.Reboot, { sn: 'D1' }));
    while (net.last.sent.length === 0) await tick();
    net.last.drop();
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect((err as BridgeError).code).toBe('CONNECTION_LOST');
  });
  it('BRIDGE-4 delivers a flow\'s messages before the reply that follows them (shell output, then exit)', async () => {
    const { net, client, close } = setup();
    teardown = close;
    client.start('ws://x/websocket');
    await openSocket(net);
    await firstValueFrom(client.connection$.pipe(filter((s) => s.status === 'open')));
    const seen: string[] = [];
    const sub = client.flow('sh-1').subscribe((e) => seen.push(String((e.data as { output: string }).output)));
    const done = lastValueFrom(client.request(Command.Shell, { sn: 'D1', flowId: 'sh-1', data: { op: 'input', line: 'ls' } }));
    while (net.last.sent.length === 0) await tick();
    const req = jsonCodec.decode(net.last.sent[0] ?? '');
    net.last.deliver(JSON.stringify({ msgId: Command.Shell, flowId: 'sh-1', data: { output: 'a\n' } }));
    net.last.deliver(JSON.stringify({ msgId: Command.Shell, flowId: 'sh-1', data: { output: 'b\n' } }));
    net.last.deliver(JSON.stringify({ msgId: Command.Shell, cid: req.cid, flowId: 'sh-1', result: Result.Success, data: { exitCode: 0 } }));
    await done;
    // The batch timer has not fired yet, yet the output is already there when the reply resolves.
    expect(seen).toEqual(['a\n', 'b\n']);
    sub.unsubscribe();
  });
});
