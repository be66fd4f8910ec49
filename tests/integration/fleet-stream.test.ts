import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessUnits } from '../../agent/ops/h264-access-units.ts';
import { videoClip, voiceClip } from '../../agent/simulator/video-source.ts';
import { createVirtualDevice, type VirtualDeviceOptions } from '../../agent/simulator/virtual-device.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import type { DeviceSession } from '../../agent/device-session.ts';
import { ChunkFlag, Command, encodeChunk, type Envelope, NO_CAMERA_MESSAGE, ProtocolEngine, Result, type SendOf, type StartStreamReply, StreamRefusal, systemClock } from '../../protocol/index.ts';
import { type FrameSink, StreamFanout, type StreamConsole, Viewer } from '../../server/gateway/stream-fanout.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/** A console socket whose send buffer the test fills and drains by hand. */
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

const frame = (flowId: string, seq: number, key: boolean) =>
  encodeChunk({ flowId, seq, timestamp: seq, flags: key ? ChunkFlag.KeyFrame : 0, payload: new Uint8Array([seq & 0xff]) });
const seqOf = (f: Uint8Array) => new DataView(f.buffer, f.byteOffset).getUint32(4 + (f[3] as number));

describe('live view drop policy', () => {
  it('starts a viewer at a key frame', () => {
    const sink = new FakeSink();
    const viewer = new Viewer(sink, 1000);
    expect(viewer.offer(frame('f', 0, false), false)).toBe(false);
    expect(viewer.offer(frame('f', 1, true), true)).toBe(true);
    expect(viewer.offer(frame('f', 2, false), false)).toBe(true);
    expect(sink.frames.map(seqOf)).toEqual([1, 2]);
  });

  it('drops a backed-up viewer up to the next key frame, then resumes there', () => {
    const sink = new FakeSink();
    const viewer = new Viewer(sink, 1000);
    viewer.offer(frame('f', 0, true), true);
    sink.bufferedAmount = 5000; // the network stalls
    expect(viewer.offer(frame('f', 1, false), false)).toBe(false);
    expect(viewer.waitingForKey).toBe(true);
    sink.bufferedAmount = 0; // drained: still no P-frame without its predecessors
    expect(viewer.offer(frame('f', 2, false), false)).toBe(false);
    expect(viewer.offer(frame('f', 3, true), true)).toBe(true);
    expect(viewer.offer(frame('f', 4, false), false)).toBe(true);
    expect(sink.frames.map(seqOf)).toEqual([0, 3, 4]);
    expect(viewer.dropped).toBe(2);
  });

  it('drops a key frame too while the socket is still backed up', () => {
    const sink = new FakeSink();
    const viewer = new Viewer(sink, 1000);
    viewer.offer(frame('f', 0, true), true);
    sink.bufferedAmount = 5000;
    expect(viewer.offer(frame('f', 1, true), true)).toBe(false);
    expect(sink.frames.map(seqOf)).toEqual([0]);
  });
});

describe('live view fan-out', () => {
  const commands: { sn: string; msgId: number; data: unknown; flowId: string }[] = [];
  const fanout = new StreamFanout({
    command: async (sn, msgId, data, opts) => {
      commands.push({ sn, msgId, data, flowId: opts.flowId });
      return msgId === Command.StartStream
        ? { msgId, sn, result: Result.Success, data: { flowId: opts.flowId, quality: 'main', codec: 'h264', width: 320, height: 240, fps: 30 } }
        : { msgId, sn, result: Result.Success };
    },
    orgOf: (sn) => (sn === 'DEV1' ? 7 : undefined),
    findDevice: async (sn) => (sn === 'DEV1' ? { orgId: 7, online: true } : sn === 'GONE' ? { orgId: 7, online: false } : undefined),
    lagBytes: 1000,
  });
  const viewer = (permissions: string[], scope: number[]): StreamConsole & { sink: FakeSink } => ({ permissions: new Set(permissions), scope: new Set(scope), sink: new FakeSink() });
  const start = (c: StreamConsole, sn = 'DEV1') =>
    new Promise<{ result: number; data: unknown }>((resolve) => fanout.fromConsole(c, { msgId: Command.StartStream, sn, data: { quality: 'main' } }, (result, data) => resolve({ result, data })));

  it('starts the device stream once for two viewers and copies each frame to both; a slow one skips to the next key frame', async () => {
    const fast = viewer(['device_live_view'], [7]);
    const slow = viewer(['device_live_view'], [7]);
    const [a, b] = await Promise.all([start(fast), start(slow)]);
    expect(a.result).toBe(Result.Success);
    const flowId = (a.data as StartStreamReply).flowId;
    expect((b.data as StartStreamReply).flowId).toBe(flowId);
    expect(commands.filter((c) => c.msgId === Command.StartStream)).toHaveLength(1);

    for (let seq = 0; seq < 12; seq++) {
      if (seq === 2) slow.sink.bufferedAmount = 10_000;
      if (seq === 5) slow.sink.bufferedAmount = 0;
      expect(fanout.fromDevice('DEV1', frame(flowId, seq, seq % 4 === 0))).toBe(true);
    }
    expect(fast.sink.frames.map(seqOf)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(slow.sink.frames.map(seqOf)).toEqual([0, 1, 8, 9, 10, 11]);
    // Another device cannot feed this stream.
    expect(fanout.fromDevice('DEV2', frame(flowId, 12, true))).toBe(false);

    fanout.fromConsole(fast, { msgId: Command.StopStream, sn: 'DEV1', data: { flowId } }, () => undefined);
    expect(commands.filter((c) => c.msgId === Command.StopStream)).toHaveLength(0);
    fanout.consoleGone(slow);
    expect(commands.filter((c) => c.msgId === Command.StopStream)).toEqual([{ sn: 'DEV1', msgId: Command.StopStream, data: { flowId }, flowId }]);
    expect(fanout.streamCount).toBe(0);
  });

  it('refuses viewers without the key or outside scope, and answers 5 for an offline device of the scope', async () => {
    expect((await start(viewer([], [7]))).result).toBe(Result.Fail);
    expect((await start(viewer(['device_live_view'], [8]))).result).toBe(Result.Fail);
    expect((await start(viewer(['device_live_view'], [7]), 'GONE'))).toMatchObject({ result: Result.DeviceOffline });
    expect((await start(viewer(['device_live_view'], [8]), 'GONE'))).toMatchObject({ result: Result.Fail });
    expect((await start(viewer(['device_live_view'], [7]), 'NOBODY'))).toMatchObject({ result: Result.Fail });
  });

  it('tells viewers when the device goes away', async () => {
    const watcher = viewer(['device_live_view'], [7]);
    const { data } = await start(watcher);
    fanout.deviceGone('DEV1');
    expect(watcher.sink.messages).toEqual([expect.objectContaining({ msgId: Command.StopStream, flowId: (data as StartStreamReply).flowId })]);
    expect(fanout.streamCount).toBe(0);
  });
});

describe('simulated video source', () => {
  it('splits the committed clips into access units that start with a key frame carrying SPS and PPS', () => {
    for (const quality of ['main', 'sub'] as const) {
      const clip = videoClip(quality);
      expect(clip.units.length).toBe(clip.fps * 4);
      const first = clip.units[0];
      expect(first?.key).toBe(true);
      expect((first?.bytes[4] as number) & 0x1f).toBe(7); // SPS
      expect(clip.units.filter((u) => u.key).length).toBe(8);
    }
    // The cameras' clips: 2 s at 15 fps, a key frame with SPS and PPS every 8 pictures.
    for (const camera of ['front', 'back'] as const) {
      for (const quality of ['main', 'sub'] as const) {
        const clip = videoClip(quality, camera);
        expect(clip.units.length).toBe(clip.fps * 2);
        expect(clip.units[0]?.key).toBe(true);
        expect((clip.units[0]?.bytes[4] as number) & 0x1f).toBe(7);
        expect(clip.units.filter((u) => u.key).length).toBe(4);
      }
    }
    // A stream of two units with 3-byte start codes splits the same way (each slice's first bit set:
    // first_mb_in_slice 0, a new picture).
    const bytes = new Uint8Array([0, 0, 1, 0x67, 1, 0, 0, 1, 0x68, 2, 0, 0, 1, 0x65, 0x88, 0, 0, 1, 0x41, 0x9a]);
    expect(accessUnits(bytes).map((u) => [u.key, u.bytes.length])).toEqual([
      [true, 15],
      [false, 5],
    ]);
  });
});

describe('live view through the gateway: two consoles watch one simulated device', () => {
  let ts: TestServer;
  let device: DeviceSession;
  // A simulated Linux terminal: its support flags say no camera and no microphone.
  let linux: DeviceSession;
  const consoles: ProtocolEngine[] = [];

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const simulated = (sn: string, info: VirtualDeviceOptions['info']) =>
      createVirtualDevice({ gatewayUrl: ts.server.deviceSocketUrl, sn, enrollKey: ts.server.seeded.enrollKey, info, transport: wsTransport(), clock: systemClock, rebootDownMs: 100, telemetry: false });
    device = simulated('LIVE1', { model: 'P10', systemType: 'android', systemVersion: 'Android 13', imageVersion: '241001.01', networkType: 2 });
    linux = simulated('LIVELX', { model: 'L1 Gateway', systemType: 'linux', systemVersion: 'Linux 6.1.7', imageVersion: '241001.01', networkType: 1 });
    device.start();
    linux.start();
    await Promise.all([device.waitLoggedIn(), linux.waitLoggedIn()]);
    const login = await loginAsAdmin(ts);
    for (let i = 0; i < 2; i++) {
      const engine = new ProtocolEngine({
        url: () => `${ts.server.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
        transport: wsTransport(),
      });
      engine.start();
      await firstValueFrom(engine.connection$.pipe(filter((s) => s.status === 'open')));
      consoles.push(engine);
    }
  });
  afterAll(async () => {
    for (const c of consoles) c.stop();
    device?.dispose();
    linux?.dispose();
    await ts?.stop();
  });

  it('fans one device stream out to both, starting each at a key frame, and stops it when the last leaves', async () => {
    const [one, two] = consoles as [ProtocolEngine, ProtocolEngine];
    const startOn = async (engine: ProtocolEngine) => (await lastValueFrom(engine.request(Command.StartStream, { sn: 'LIVE1', data: { quality: 'main' } }))).reply;
    // Listening before the start: frames may arrive in the same socket read as the reply.
    const framesOne = firstValueFrom(one.chunks$.pipe(take(20), toArray()));
    const first = await startOn(one);
    expect(first).toMatchObject({ result: Result.Success, data: { codec: 'h264', width: 320, height: 240, fps: 30 } });
    const flowId = (first.data as StartStreamReply).flowId;
    const second = await startOn(two);
    expect((second.data as StartStreamReply).flowId).toBe(flowId);
    expect(ts.server.gateway.streams.streamCount).toBe(1);
    const framesTwo = await firstValueFrom(two.chunks(flowId).pipe(take(20), toArray()));
    expect((await framesOne).every((c) => c.flowId === flowId)).toBe(true);
    const got = await framesOne;
    for (const frames of [got, framesTwo]) {
      expect((frames[0]?.flags ?? 0) & ChunkFlag.KeyFrame).toBe(ChunkFlag.KeyFrame);
      // Consecutive frames of the device, in order, each an H.264 access unit with a start code.
      for (let i = 1; i < frames.length; i++) expect(frames[i]?.seq).toBe((frames[i - 1]?.seq ?? 0) + 1);
      expect([...(frames[1]?.payload.subarray(0, 3) ?? [])]).toEqual([0, 0, 0]);
    }
    expect(ts.server.gateway.streams.viewersOf(flowId)).toHaveLength(2);

    await lastValueFrom(one.request(Command.StopStream, { sn: 'LIVE1', data: { flowId } }));
    expect(ts.server.gateway.streams.viewersOf(flowId)).toHaveLength(1);
    // The other viewer keeps receiving.
    await firstValueFrom(two.chunks(flowId).pipe(take(3), toArray()));
    await lastValueFrom(two.request(Command.StopStream, { sn: 'LIVE1', data: { flowId } }));
    expect(ts.server.gateway.streams.streamCount).toBe(0);
  });

  it('streams each camera as its own stream with its own picture, and voice only to the console that asked', async () => {
    const [one, two] = consoles as [ProtocolEngine, ProtocolEngine];
    const startOn = async (engine: ProtocolEngine, data: SendOf<typeof Command.StartStream>) => (await lastValueFrom(engine.request(Command.StartStream, { sn: 'LIVE1', data }))).reply;
    const screen = await startOn(one, { quality: 'main' });
    const front = await startOn(two, { quality: 'main', camera: 'front', audio: true });
    expect(screen).toMatchObject({ result: Result.Success, data: { camera: 'screen', width: 320, height: 240 } });
    expect(front).toMatchObject({ result: Result.Success, data: { camera: 'front', width: 240, height: 320, fps: 15, audio: { codec: 'opus', sampleRate: 48000, channels: 1 } } });
    const screenFlow = (screen.data as StartStreamReply).flowId;
    const frontFlow = (front.data as StartStreamReply).flowId;
    expect(frontFlow).not.toBe(screenFlow);
    expect(ts.server.gateway.streams.streamCount).toBe(2);

    // The front camera's picture is its own clip: its key frames are that clip's, none of the screen's.
    const keysOf = (camera: 'screen' | 'front') => videoClip('main', camera).units.filter((u) => u.key).map((u) => Buffer.from(u.bytes).toString('hex'));
    const frontVideo = await firstValueFrom(two.chunks(frontFlow).pipe(filter((c) => (c.flags & ChunkFlag.KeyFrame) !== 0)));
    expect(keysOf('front')).toContain(Buffer.from(frontVideo.payload).toString('hex'));
    expect(keysOf('screen')).not.toContain(Buffer.from(frontVideo.payload).toString('hex'));
    // Voice reaches the console that asked, one Opus packet of the clip per chunk, counted on its own.
    const voice = await firstValueFrom(two.chunks(frontFlow).pipe(filter((c) => (c.flags & ChunkFlag.Audio) !== 0), take(5), toArray()));
    const packets = voiceClip().packets.map((p) => Buffer.from(p).toString('hex'));
    for (const c of voice) expect(packets).toContain(Buffer.from(c.payload).toString('hex'));
    expect(voice.map((c) => c.seq - (voice[0]?.seq ?? 0))).toEqual([0, 1, 2, 3, 4]);

    // Console one joins the front camera without voice: its chunks on that flow are all video.
    const joined = await startOn(one, { quality: 'main', camera: 'front' });
    expect((joined.data as StartStreamReply).flowId).toBe(frontFlow);
    const seenByOne = await firstValueFrom(one.chunks(frontFlow).pipe(take(20), toArray()));
    expect(seenByOne.every((c) => (c.flags & ChunkFlag.Audio) === 0)).toBe(true);
    // Then turns voice on: same flow, and voice arrives.
    await startOn(one, { quality: 'main', camera: 'front', audio: true });
    await firstValueFrom(one.chunks(frontFlow).pipe(filter((c) => (c.flags & ChunkFlag.Audio) !== 0)));
    expect(ts.server.gateway.streams.streamCount).toBe(2);

    for (const [engine, flowId] of [[one, screenFlow], [one, frontFlow], [two, frontFlow]] as const) await lastValueFrom(engine.request(Command.StopStream, { sn: 'LIVE1', data: { flowId } }));
    expect(ts.server.gateway.streams.streamCount).toBe(0);
  });

  it('refuses a camera on a device whose support flags say it has none, and streams its screen without voice', async () => {
    const [one] = consoles as [ProtocolEngine];
    const cam = await lastValueFrom(one.request(Command.StartStream, { sn: 'LIVELX', data: { quality: 'main', camera: 'back' } }));
    expect(cam.reply).toMatchObject({ result: Result.Fail, data: { message: NO_CAMERA_MESSAGE, reason: StreamRefusal.noCamera } });
    expect(ts.server.gateway.streams.streamCount).toBe(0);
    const screen = await lastValueFrom(one.request(Command.StartStream, { sn: 'LIVELX', data: { quality: 'sub', audio: true } }));
    expect(screen.reply.result).toBe(Result.Success);
    expect((screen.reply.data as StartStreamReply).audio).toBeUndefined();
    await lastValueFrom(one.request(Command.StopStream, { sn: 'LIVELX', data: { flowId: (screen.reply.data as StartStreamReply).flowId } }));
  });

  it('sends live control input to the device and refuses malformed input', async () => {
    const [one] = consoles as [ProtocolEngine];
    const tap = await lastValueFrom(one.request(Command.RemoteControl, { sn: 'LIVE1', data: { action: 'tap', x: 0.5, y: 0.25 } }));
    expect(tap.reply).toMatchObject({ result: Result.Success, data: { applied: 'tap' } });
    const bad = await lastValueFrom(one.request(Command.RemoteControl, { sn: 'LIVE1', data: { action: 'tap', x: 3, y: 0 } }));
    expect(bad.reply.result).toBe(Result.MessageError);
  });
});
