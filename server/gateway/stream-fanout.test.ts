import { describe, expect, it } from 'vitest';
import { ChunkFlag, Command, encodeChunk, type Envelope, Result } from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { SubjectHandlers } from '../bus/handlers.ts';
import { BUS_SUBJECTS, type BusSubject, Subject } from '../bus/subjects.ts';
import { type FrameSink, STREAM_WATCH_EXPIRY_MS, StreamFanout, type StreamConsole, streamKey } from './stream-fanout.ts';

/**
 * A bus shared by several nodes in one process; delivery waits for flush(), so tests choose the order.
 * Messages go through their subjects' decoders on delivery, as on NATS.
 */
class TestBus {
  readonly #subs = new SubjectHandlers(BUS_SUBJECTS, { warn: (obj, msg) => this.refused.push(msg) });
  readonly queue: { subject: BusSubject; message: unknown }[] = [];
  readonly refused: string[] = [];
  readonly node: Bus = {
    shared: true,
    publish: (subject, message) => void this.queue.push({ subject, message }),
    subscribe: (subject, handler) => {
      this.#subs.add(subject, handler);
      return () => void this.#subs.remove(subject, handler);
    },
    close: async () => undefined,
  };
  async flush(): Promise<void> {
    // Answers are published once promises settle: let them, then deliver until quiet.
    for (let round = 0; round < 10; round++) {
      await new Promise((r) => setImmediate(r));
      for (const { subject, message } of this.queue.splice(0)) this.#subs.deliver(subject.name, message);
    }
    // Every message the fan-out published was one its subject's decoder accepts.
    expect(this.refused).toEqual([]);
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
  const findDevice = async (sn: string) => (sn === 'DEV1' ? { orgId: 7, online: true } : undefined);
  const a = new StreamFanout({
    command: async (sn, msgId, _data, opts) => {
      deviceCommands.push({ msgId, flowId: opts.flowId });
      return { msgId, sn, result: Result.Success, data: msgId === Command.StartStream ? { flowId: opts.flowId, quality: 'main', codec: 'h264', width: 320, height: 240, fps: 30 } : undefined };
    },
    orgOf: (sn) => (sn === 'DEV1' ? 7 : undefined),
    findDevice,
    lagBytes: 1000,
  });
  const b = new StreamFanout({ command: () => Promise.reject(new Error('B holds no device')), orgOf: () => undefined, findDevice, lagBytes: 1000 });
  const leaveA = a.joinCluster({ bus: bus.node, nodeId: 'A', now: () => now });
  const leaveB = b.joinCluster({ bus: bus.node, nodeId: 'B', now: () => now });
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
    expect(bus.queue.filter((q) => q.subject.name === Subject.streamToNode('B').name)).toHaveLength(2);
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
    expect(bus.queue.splice(0).filter((q) => q.subject.name === Subject.streamToNode('B').name)).toHaveLength(1);
    // Node B goes away without a word: no keepalive reaches A.
    leaveB();
    advance(STREAM_WATCH_EXPIRY_MS + 1);
    a.fromDevice('DEV1', frame(flowId, 1, false));
    expect(bus.queue.filter((q) => q.subject.name === Subject.streamToNode('B').name)).toHaveLength(0);
    expect(a.streamCount).toBe(0);
    expect(deviceCommands.at(-1)?.msgId).toBe(Command.StopStream);
    stop();
  });
});

/** One node holding DEV1, whose device answers every StartStream with the camera it was asked for. */
function oneNode() {
  const asked: { msgId: number; data: unknown; flowId: string }[] = [];
  const fanout = new StreamFanout({
    command: async (sn, msgId, data, opts) => {
      asked.push({ msgId, data, flowId: opts.flowId });
      const camera = (data as { camera?: string } | undefined)?.camera ?? 'screen';
      return { msgId, sn, result: Result.Success, data: msgId === Command.StartStream ? { flowId: opts.flowId, quality: 'main', camera, codec: 'h264', width: 320, height: 240, fps: 30 } : undefined };
    },
    orgOf: (sn) => (sn === 'DEV1' ? 7 : undefined),
    findDevice: async (sn) => (sn === 'DEV1' ? { orgId: 7, online: true } : undefined),
    lagBytes: 1000,
  });
  const start = (c: StreamConsole, data: Record<string, unknown>) =>
    new Promise<{ result: number; data: unknown }>((resolve) => fanout.fromConsole(c, { msgId: Command.StartStream, sn: 'DEV1', data }, (result, d) => resolve({ result, data: d })));
  return { fanout, asked, start };
}

const audio = (flowId: string, seq: number) => encodeChunk({ flowId, seq, timestamp: seq, flags: ChunkFlag.Audio, payload: new Uint8Array([0xf8, seq]) });
const flagsOf = (frames: readonly Uint8Array[]) => frames.map((f) => (f[2] as number) & ChunkFlag.Audio);

describe('LIVE-1 stream keying by camera', () => {
  it('keys a stream by device, quality and camera: the screen is the default, cameras are streams of their own', () => {
    expect(streamKey('DEV1', 'main')).toBe(streamKey('DEV1', 'main', 'screen'));
    const keys = new Set(['screen', 'front', 'back'].flatMap((camera) => (['main', 'sub'] as const).map((q) => streamKey('DEV1', q, camera as 'screen'))));
    expect(keys.size).toBe(6);
    expect(streamKey('DEV1', 'main', 'front')).not.toBe(streamKey('DEV2', 'main', 'front'));
  });

  it('one encode per camera: two viewers of the front camera share a flow, a screen viewer gets another; old requests ask the screen as before', async () => {
    const { fanout, asked, start } = oneNode();
    const [f1, f2, s] = [viewer(), viewer(), viewer()];
    const [a, b, c] = await Promise.all([start(f1, { quality: 'main', camera: 'front' }), start(f2, { quality: 'main', camera: 'front' }), start(s, { quality: 'main' })]);
    const flowOf = (r: { data: unknown }) => (r.data as { flowId: string }).flowId;
    expect(flowOf(a)).toBe(flowOf(b));
    expect(flowOf(c)).not.toBe(flowOf(a));
    expect(fanout.streamCount).toBe(2);
    expect(asked.map((x) => x.data)).toEqual([{ quality: 'main', camera: 'front' }, { quality: 'main' }]);
    // A frame of the front camera reaches only its viewers.
    fanout.fromDevice('DEV1', frame(flowOf(a), 0, true));
    expect([f1.sink.frames.length, f2.sink.frames.length, s.sink.frames.length]).toEqual([1, 1, 0]);
    expect((await start(viewer(), { quality: 'main', camera: 'side' })).result).toBe(Result.MessageError);
  });
});

describe('LIVE-3 voice frames', () => {
  it('go only to viewers that asked, never wait for a key frame, and a viewer turns voice on or off without a new stream', async () => {
    const { fanout, asked, start } = oneNode();
    const [hears, mute] = [viewer(), viewer()];
    const first = await start(hears, { quality: 'main', audio: true });
    await start(mute, { quality: 'main' });
    const flowId = (first.data as { flowId: string }).flowId;
    // Before any key frame: video waits, voice does not.
    fanout.fromDevice('DEV1', frame(flowId, 0, false));
    fanout.fromDevice('DEV1', audio(flowId, 0));
    expect(flagsOf(hears.sink.frames)).toEqual([ChunkFlag.Audio]);
    expect(mute.sink.frames).toHaveLength(0);
    fanout.fromDevice('DEV1', frame(flowId, 1, true));
    expect(flagsOf(mute.sink.frames)).toEqual([0]);

    // The muted viewer turns voice on: same flow, no second device stream.
    const again = await start(mute, { quality: 'main', audio: true });
    expect((again.data as { flowId: string }).flowId).toBe(flowId);
    expect(asked.filter((x) => x.msgId === Command.StartStream)).toHaveLength(1);
    fanout.fromDevice('DEV1', audio(flowId, 1));
    expect(flagsOf(mute.sink.frames)).toEqual([0, ChunkFlag.Audio]);
    await start(hears, { quality: 'main', audio: false });
    fanout.fromDevice('DEV1', audio(flowId, 2));
    expect(flagsOf(hears.sink.frames)).toEqual([ChunkFlag.Audio, 0, ChunkFlag.Audio]);
  });

  it('a lagging viewer loses only the voice frames sent while it lags, and hears again at once when drained', async () => {
    const { fanout, start } = oneNode();
    const v = viewer();
    const flowId = ((await start(v, { quality: 'main', audio: true })).data as { flowId: string }).flowId;
    fanout.fromDevice('DEV1', frame(flowId, 0, true));
    v.sink.bufferedAmount = 5000;
    fanout.fromDevice('DEV1', audio(flowId, 1));
    fanout.fromDevice('DEV1', frame(flowId, 1, false));
    fanout.fromDevice('DEV1', audio(flowId, 2));
    v.sink.bufferedAmount = 0;
    // Video now waits for its next key frame; voice does not.
    fanout.fromDevice('DEV1', frame(flowId, 2, false));
    fanout.fromDevice('DEV1', audio(flowId, 3));
    const [watched] = fanout.viewersOf(flowId);
    expect(watched?.waitingForKey).toBe(true);
    expect(flagsOf(v.sink.frames)).toEqual([0, ChunkFlag.Audio]);
    expect(watched).toMatchObject({ audioSent: 1, audioDropped: 2, dropped: 2 });
  });

  it('reach a mirror\'s viewers across nodes under the same rule', async () => {
    const { bus, a, b, stop } = twoNodes();
    const v = viewer();
    const started = new Promise<{ result: number; data: unknown }>((resolve) => b.fromConsole(v, { msgId: Command.StartStream, sn: 'DEV1', data: { quality: 'main', audio: true } }, (result, data) => resolve({ result, data })));
    await bus.flush();
    const flowId = ((await started).data as { flowId: string }).flowId;
    a.fromDevice('DEV1', audio(flowId, 0));
    await bus.flush();
    expect(flagsOf(v.sink.frames)).toEqual([ChunkFlag.Audio]);
    stop();
  });
});

describe('live view refusals do not tell whether another organisation\'s device exists', () => {
  // Organisation 7's viewer. HERE-7 is connected to this node; HERE-8 too, in organisation 8; AWAY-8 is
  // online on another node; OFF-8 and OFF-7 are offline; NOBODY does not exist.
  const rows: Record<string, { orgId: number; online: boolean }> = {
    'HERE-7': { orgId: 7, online: true },
    'HERE-8': { orgId: 8, online: true },
    'AWAY-8': { orgId: 8, online: true },
    'OFF-8': { orgId: 8, online: false },
    'OFF-7': { orgId: 7, online: false },
  };
  const connected: Record<string, number> = { 'HERE-7': 7, 'HERE-8': 8 };
  const fanout = (shared: boolean) => {
    const f = new StreamFanout({
      command: async (sn, msgId, _data, opts) => ({ msgId, sn, result: Result.Success, data: { flowId: opts.flowId, quality: 'main', codec: 'h264', width: 320, height: 240, fps: 30 } }),
      orgOf: (sn) => connected[sn],
      findDevice: async (sn) => rows[sn],
    });
    if (shared) f.joinCluster({ bus: new TestBus().node, nodeId: 'A' });
    return f;
  };
  const answerTo = (f: StreamFanout, sn: string) =>
    new Promise<{ result: number; data: unknown }>((resolve) => f.fromConsole(viewer(), { msgId: Command.StartStream, sn, data: { quality: 'main' } }, (result, data) => resolve({ result, data })));
  const refused = { result: Result.Fail, data: { message: 'Permission denied or Session expire' } };

  for (const shared of [false, true]) {
    it(`${shared ? 'in a cluster' : 'on a lone node'}: an unknown serial and another organisation's device, online or not, get the same refusal; only the caller's own offline device is 5`, async () => {
      const f = fanout(shared);
      for (const sn of ['NOBODY', 'HERE-8', 'AWAY-8', 'OFF-8']) expect(await answerTo(f, sn), sn).toEqual(refused);
      expect((await answerTo(f, 'OFF-7')).result).toBe(Result.DeviceOffline);
      expect((await answerTo(f, 'HERE-7')).result).toBe(Result.Success);
    });
  }
});
