import { describe, expect, it } from 'vitest';
import { ChunkFlag, Command, encodeChunk, type Envelope, Result } from '../../protocol/index.ts';
import type { Bus, BusMessage } from '../bus/bus.ts';
import { type FrameSink, STREAM_WATCH_EXPIRY_MS, StreamFanout, type StreamConsole, StreamSubject } from './stream-fanout.ts';

/** A bus shared by several nodes in one process; delivery waits for flush(), so tests choose the order. */
class TestBus {
  readonly #subs = new Map<string, ((m: BusMessage) => void)[]>();
  readonly queue: { subject: string; message: BusMessage }[] = [];
  readonly node: Bus = {
    shared: true,
    publish: (subject, message) => void this.queue.push({ subject, message }),
    subscribe: (subject, handler) => {
      this.#subs.set(subject, [...(this.#subs.get(subject) ?? []), handler]);
      return () => this.#subs.set(subject, (this.#subs.get(subject) ?? []).filter((h) => h !== handler));
    },
    close: async () => undefined,
  };
  async flush(): Promise<void> {
    // Answers are published once promises settle: let them, then deliver until quiet.
    for (let round = 0; round < 10; round++) {
      await new Promise((r) => setImmediate(r));
      for (const { subject, message } of this.queue.splice(0)) for (const h of this.#subs.get(subject) ?? []) h(message);
    }
  }
}

class FakeSink implements FrameSink {
  bufferedAmount = 0;
  open = true;
  readonly frames: Uint8Array[] = [];
  readonly messages: Envelope[] = [];
  sendFrame(frame: Uint8Array): void {
    this.frames.push(frame);
  }
  sendMessage(env: Envelope): void {
    this.messages.push(env);
  }
}

const viewer = (): StreamConsole & { sink: FakeSink } => ({ permissions: new Set(['device_live_view']), scope: new Set([7]), sink: new FakeSink() });
const frame = (flowId: string, seq: number, key: boolean) => encodeChunk({ flowId, seq, timestamp: seq, flags: key ? ChunkFlag.KeyFrame : 0, payload: new Uint8Array([seq]) });

/** Node A holds device DEV1; node B does not. */
function twoNodes() {
  const bus = new TestBus();
  let now = 0;
  const deviceCommands: { msgId: number; flowId: string }[] = [];
  const a = new StreamFanout({
    command: async (sn, msgId, _data, opts) => {
      deviceCommands.push({ msgId, flowId: opts.flowId });
      return { msgId, sn, result: Result.Success, data: msgId === Command.StartStream ? { flowId: opts.flowId, quality: 'main', codec: 'h264', width: 320, height: 240, fps: 30 } : undefined };
    },
    orgOf: (sn) => (sn === 'DEV1' ? 7 : undefined),
    lagBytes: 1000,
  });
  const b = new StreamFanout({ command: () => Promise.reject(new Error('B holds no device')), orgOf: () => undefined, lagBytes: 1000 });
  const findDevice = async (sn: string) => (sn === 'DEV1' ? { orgId: 7, online: true } : undefined);
  const leaveA = a.joinCluster({ bus: bus.node, nodeId: 'A', findDevice, now: () => now });
  const leaveB = b.joinCluster({ bus: bus.node, nodeId: 'B', findDevice, now: () => now });
  const start = (fanout: StreamFanout, c: StreamConsole) =>
    new Promise<{ result: number; data: unknown }>((resolve) => fanout.fromConsole(c, { msgId: Command.StartStream, sn: 'DEV1', data: { quality: 'main' } }, (result, data) => resolve({ result, data })));
  return { bus, a, b, deviceCommands, start, advance: (ms: number) => (now += ms), leaveB, stop: () => (leaveA(), leaveB()) };
}

describe('LIVE-2 live view across nodes', () => {
  it('LIVE-2 node B mirrors node A\'s stream: one device stream, each frame published once for B\'s two viewers', async () => {
    const { bus, a, b, deviceCommands, start, stop } = twoNodes();
    const [v1, v2] = [viewer(), viewer()];
    const first = start(b, v1);
    await bus.flush();
    const reply = await first;
    expect(reply.result).toBe(Result.Success);
    const flowId = (reply.data as { flowId: string }).flowId;
    const second = start(b, v2);
    await bus.flush();
    expect((await second).result).toBe(Result.Success);
    expect(deviceCommands.filter((c) => c.msgId === Command.StartStream)).toHaveLength(1);

    a.fromDevice('DEV1', frame(flowId, 0, true));
    a.fromDevice('DEV1', frame(flowId, 1, false));
    expect(bus.queue.filter((q) => q.subject === StreamSubject.toNode('B'))).toHaveLength(2);
    await bus.flush();
    expect(v1.sink.frames).toHaveLength(2);
    expect(v2.sink.frames).toHaveLength(2);

    // The slow-viewer rule holds on B: a backed-up viewer skips to the next key frame.
    v2.sink.bufferedAmount = 5000;
    a.fromDevice('DEV1', frame(flowId, 2, false));
    await bus.flush();
    v2.sink.bufferedAmount = 0;
    a.fromDevice('DEV1', frame(flowId, 3, false));
    a.fromDevice('DEV1', frame(flowId, 4, true));
    await bus.flush();
    expect(v1.sink.frames).toHaveLength(5);
    expect(v2.sink.frames).toHaveLength(3);
    expect(b.viewersOf(flowId)[1]?.dropped).toBe(2);

    // B's last viewer leaves: A stops the device's stream once it hears so.
    b.consoleGone(v1);
    b.consoleGone(v2);
    expect(b.streamCount).toBe(0);
    await bus.flush();
    expect(a.streamCount).toBe(0);
    expect(deviceCommands.at(-1)?.msgId).toBe(Command.StopStream);
    stop();
  });

  it('LIVE-2 B\'s viewers are told when the device goes offline on A', async () => {
    const { bus, a, b, start, stop } = twoNodes();
    const v = viewer();
    const started = start(b, v);
    await bus.flush();
    const flowId = ((await started).data as { flowId: string }).flowId;
    a.deviceGone('DEV1');
    await bus.flush();
    expect(v.sink.messages).toEqual([{ msgId: Command.StopStream, sn: 'DEV1', flowId, data: { flowId, reason: 'offline' } }]);
    expect(b.streamCount).toBe(0);
    stop();
  });

  it('LIVE-2 A stops sending to a node it has not heard from (a node that died), and stops the device when no one is left', async () => {
    const { bus, a, deviceCommands, start, advance, b, leaveB, stop } = twoNodes();
    const started = start(b, viewer());
    await bus.flush();
    const flowId = ((await started).data as { flowId: string }).flowId;
    // Before the expiry A keeps sending to B.
    a.fromDevice('DEV1', frame(flowId, 0, true));
    expect(bus.queue.splice(0).filter((q) => q.subject === StreamSubject.toNode('B'))).toHaveLength(1);
    // Node B goes away without a word: no keepalive reaches A.
    leaveB();
    advance(STREAM_WATCH_EXPIRY_MS + 1);
    a.fromDevice('DEV1', frame(flowId, 1, false));
    expect(bus.queue.filter((q) => q.subject === StreamSubject.toNode('B'))).toHaveLength(0);
    expect(a.streamCount).toBe(0);
    expect(deviceCommands.at(-1)?.msgId).toBe(Command.StopStream);
    stop();
  });
});
