import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INPUT_UNSUPPORTED, STREAM_UNSUPPORTED } from '../../agent/ops/screen-stream.ts';
import { opusPackets } from '../../agent/simulator/ogg-opus.ts';
import { accessUnits } from '../../agent/ops/h264-access-units.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { ChunkFlag, Command, type Envelope, NO_CAMERA_MESSAGE, OnlineState, ProtocolEngine, type RemoteControlRequest, Result, type StartStreamReply, StreamRefusal } from '../../protocol/index.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const CLIP = path.resolve('agent/simulator/assets/main-320x240-30fps.h264');
const VOICE = path.resolve('agent/simulator/assets/voice-48k-mono.opus');
/** 10 pictures of 4 slices each, as x264 writes them with the README's -tune zerolatency (tests/fixtures/h264/README.md). */
const SLICED_CLIP = path.resolve('tests/fixtures/h264/testsrc-320x240-10f-4slices.h264');

/**
 * The real agent's live view over real sockets: AGENT_STREAM_CMD is a command that cats the simulator's
 * clip (so no ffmpeg is needed), and its access units reach a console through the gateway.
 */
describe('agent live view from a capture command', () => {
  let ts: TestServer;
  let consoleEngine: ProtocolEngine;
  const agents: ChildProcess[] = [];
  const dirs: string[] = [];
  let inputLog = '';
  let streamLog = '';

  const startAgent = async (sn: string, env: Record<string, string>) => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-stream-'));
    dirs.push(stateDir);
    const online = firstValueFrom(
      consoleEngine.messages$.pipe(filter((e: Envelope) => e.msgId === Command.DevicePresence && e.sn === sn && (e.data as { onlineState: number }).onlineState === OnlineState.Online)),
    );
    const agent = spawn(process.execPath, [path.resolve('agent/agent-cli.ts')], {
      env: { ...process.env, AGENT_GATEWAY_URL: ts.server.deviceSocketUrl, AGENT_SN: sn, AGENT_ENROLL_KEY: ts.server.seeded.enrollKey, AGENT_STATE_FILE: path.join(stateDir, 'state.json'), ...env },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    agents.push(agent);
    await online;
  };

  beforeAll(async () => {
    ts = await startTestServer('sqlite');
    const login = await loginAsAdmin(ts);
    consoleEngine = new ProtocolEngine({
      url: () => `${ts.server.url.replace('http', 'ws')}/websocket?token=${login.token}&accountId=${login.accountId}&orgId=${login.orgId}`,
      transport: wsTransport(),
    });
    consoleEngine.start();
    await firstValueFrom(consoleEngine.connection$.pipe(filter((s) => s.status === 'open')));
    const inputs = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-input-')), 'inputs.txt');
    dirs.push(path.dirname(inputs));
    inputLog = inputs;
    streamLog = path.join(path.dirname(inputs), 'streams.txt');
    await startAgent(`AGSTREAM-${process.pid}`, {
      // Records the picture it was asked for, then prints the clip.
      AGENT_STREAM_CMD: `echo "$STREAM_QUALITY $STREAM_CAMERA" >> '${streamLog}'; cat '${CLIP}'`,
      AGENT_AUDIO_CMD: `cat '${VOICE}'`,
      AGENT_STREAM_SIZE: '320x240',
      // Stands in for xdotool or ydotool: records what it was asked to do.
      AGENT_INPUT_CMD: `echo "$INPUT_ACTION $INPUT_X $INPUT_Y $INPUT_X2 $INPUT_Y2 $INPUT_DURATION_MS $INPUT_KEY $INPUT_DX $INPUT_DY $INPUT_TEXT" >> '${inputs}'; if [ "$INPUT_ACTION" = clipboard_get ]; then printf 'on the device'; fi`,
    });
    await startAgent(`AGNOSTREAM-${process.pid}`, {});
    await startAgent(`AGSLICES-${process.pid}`, { AGENT_STREAM_CMD: `cat '${SLICED_CLIP}'`, AGENT_STREAM_SIZE: '320x240', AGENT_STREAM_FPS: '15' });
  });

  afterAll(async () => {
    for (const a of agents) a.kill('SIGTERM');
    consoleEngine?.stop();
    await ts?.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('streams every access unit the capture command prints, in order, starting at a key frame', async () => {
    const units = accessUnits(new Uint8Array(fs.readFileSync(CLIP)));
    // Listening before the start: frames may arrive in the same socket read as the reply.
    const frames = firstValueFrom(consoleEngine.chunks$.pipe(take(units.length), toArray()));
    const { reply } = await lastValueFrom(consoleEngine.request(Command.StartStream, { sn: `AGSTREAM-${process.pid}`, data: { quality: 'main' } }));
    expect(reply).toMatchObject({ result: Result.Success, data: { codec: 'h264', width: 320, height: 240, fps: 30 } });
    const flowId = (reply.data as StartStreamReply).flowId;
    const got = await frames;
    expect(got.every((c) => c.flowId === flowId)).toBe(true);
    expect(got.map((c) => c.seq)).toEqual(units.map((_, i) => i));
    expect(got.map((c) => (c.flags & ChunkFlag.KeyFrame) !== 0)).toEqual(units.map((u) => u.key));
    expect(got.every((c, i) => Buffer.from(c.payload).equals(Buffer.from(units[i]?.bytes ?? [])))).toBe(true);
    const stopped = await lastValueFrom(consoleEngine.request(Command.StopStream, { sn: `AGSTREAM-${process.pid}`, data: { flowId } }));
    expect(stopped.reply.result).toBe(Result.Success);
  });

  it('sends one chunk per picture of a multi-slice capture (x264 -tune zerolatency): 10 frames for a 10-picture clip', async () => {
    const sn = `AGSLICES-${process.pid}`;
    const clip = fs.readFileSync(SLICED_CLIP);
    const frames = firstValueFrom(consoleEngine.chunks$.pipe(take(10), toArray()));
    const { reply } = await lastValueFrom(consoleEngine.request(Command.StartStream, { sn, data: { quality: 'main' } }));
    expect(reply).toMatchObject({ result: Result.Success, data: { width: 320, height: 240, fps: 15 } });
    const got = await frames.finally(() => lastValueFrom(consoleEngine.request(Command.StopStream, { sn, data: { flowId: (reply.data as StartStreamReply).flowId } })));
    expect(got.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(got.map((c) => (c.flags & ChunkFlag.KeyFrame) !== 0)).toEqual([true, false, false, false, false, false, false, false, false, false]);
    // Ten chunks that together are the whole clip: each is a whole picture, and there is no eleventh.
    expect(Buffer.concat(got.map((c) => c.payload)).equals(clip)).toBe(true);
    const slicesIn = (b: Uint8Array) => b.reduce((n, _, i) => n + (b[i] === 0 && b[i + 1] === 0 && b[i + 2] === 1 && [1, 5].includes((b[i + 3] ?? 0) & 0x1f) ? 1 : 0), 0);
    expect(got.map((c) => slicesIn(c.payload))).toEqual(Array(10).fill(4));
  });

  it('passes the voice of AGENT_AUDIO_CMD through as Audio chunks to a console that asked, and refuses a camera the device lacks', async () => {
    const sn = `AGSTREAM-${process.pid}`;
    const packets = opusPackets(new Uint8Array(fs.readFileSync(VOICE))).packets;
    const voice = firstValueFrom(consoleEngine.chunks$.pipe(filter((c) => (c.flags & ChunkFlag.Audio) !== 0), take(packets.length), toArray()));
    const { reply } = await lastValueFrom(consoleEngine.request(Command.StartStream, { sn, data: { quality: 'sub', audio: true } }));
    expect(reply).toMatchObject({ result: Result.Success, data: { camera: 'screen', audio: { codec: 'opus', sampleRate: 48000, channels: 1 } } });
    const got = await voice;
    expect(got.map((c) => c.seq)).toEqual(packets.map((_, i) => i));
    expect(got.every((c, i) => Buffer.from(c.payload).equals(Buffer.from(packets[i] ?? [])))).toBe(true);
    const flowId = (reply.data as StartStreamReply).flowId;
    await lastValueFrom(consoleEngine.request(Command.StopStream, { sn, data: { flowId } }));
    expect(fs.readFileSync(streamLog, 'utf8')).toContain('sub screen\n');
    // The support flag's rule: a camera is /dev/video0, which a test machine lacks.
    if (!fs.existsSync('/dev/video0')) {
      const front = await lastValueFrom(consoleEngine.request(Command.StartStream, { sn, data: { quality: 'main', camera: 'front' } }));
      expect(front.reply).toMatchObject({ result: Result.Fail, data: { message: NO_CAMERA_MESSAGE, reason: StreamRefusal.noCamera } });
      expect(ts.server.gateway.streams.streamCount).toBe(0);
    }
  });

  it('runs AGENT_INPUT_CMD for live control, with the picture fractions as pixels of the stream size', async () => {
    const ask = async (data: RemoteControlRequest) => (await lastValueFrom(consoleEngine.request(Command.RemoteControl, { sn: `AGSTREAM-${process.pid}`, data }))).reply;
    // The reply says where a pointer input landed, in the device's pixels (group control shows it per device).
    expect(await ask({ action: 'tap', x: 0.5, y: 0.25 })).toMatchObject({ result: Result.Success, data: { applied: 'tap', at: { x: 160, y: 60 } } });
    expect(await ask({ action: 'swipe', x1: 0.1, y1: 0.5, x2: 0.9, y2: 0.5, durationMs: 300 })).toMatchObject({ result: Result.Success, data: { applied: 'swipe', at: { x: 32, y: 120 } } });
    const key = await ask({ action: 'key', key: 'home' });
    expect(key).toMatchObject({ result: Result.Success });
    expect(key.data).not.toHaveProperty('at');
    expect((await ask({ action: 'tap', x: 2, y: 0 })).result).toBe(Result.MessageError);
    expect(fs.readFileSync(inputLog, 'utf8').split('\n').map((l) => l.trim().replace(/ +/g, ' '))).toEqual(['tap 160 60', 'swipe 32 120 288 120 300', 'key home', '']);
  });

  it('types text, scrolls, long-presses and sets and reads the clipboard through AGENT_INPUT_CMD (issue 20)', async () => {
    const ask = async (data: RemoteControlRequest) => (await lastValueFrom(consoleEngine.request(Command.RemoteControl, { sn: `AGSTREAM-${process.pid}`, data }))).reply;
    const before = fs.readFileSync(inputLog, 'utf8').split('\n').length - 1;
    expect(await ask({ action: 'text', text: 'hello world' })).toMatchObject({ result: Result.Success, data: { applied: 'text' } });
    expect(await ask({ action: 'scroll', x: 0.5, y: 0.5, dx: 0, dy: -3 })).toMatchObject({ result: Result.Success, data: { applied: 'scroll' } });
    expect(await ask({ action: 'longPress', x: 0.25, y: 0.5, durationMs: 800 })).toMatchObject({ result: Result.Success, data: { applied: 'longPress' } });
    expect(await ask({ action: 'clipboard', text: 'to paste' })).toMatchObject({ result: Result.Success, data: { applied: 'clipboard' } });
    expect(await ask({ action: 'clipboard' })).toMatchObject({ result: Result.Success, data: { applied: 'clipboard', text: 'on the device' } });
    expect(fs.readFileSync(inputLog, 'utf8').split('\n').slice(before).map((l) => l.trim().replace(/ +/g, ' '))).toEqual([
      'text hello world',
      'scroll 160 120 0 -3',
      'long_press 80 120 800',
      'clipboard_set to paste',
      'clipboard_get',
      '',
    ]);
  });

  it('reports the microphone support flag as the voice it streams: on with AGENT_AUDIO_CMD, off without (issue 20)', async () => {
    const micOf = async (sn: string) => ((await lastValueFrom(consoleEngine.request(Command.SystemInfo, { sn }))).reply.data as { support?: { mic?: boolean } } | undefined)?.support?.mic;
    expect(await micOf(`AGSTREAM-${process.pid}`)).toBe(true);
    expect(await micOf(`AGNOSTREAM-${process.pid}`)).toBe(false);
  });

  it('answers result 1 with a clear message when AGENT_STREAM_CMD or AGENT_INPUT_CMD is unset', async () => {
    const { reply } = await lastValueFrom(consoleEngine.request(Command.StartStream, { sn: `AGNOSTREAM-${process.pid}`, data: { quality: 'main' } }));
    expect(reply).toMatchObject({ result: Result.Fail, data: { message: STREAM_UNSUPPORTED } });
    const input = await lastValueFrom(consoleEngine.request(Command.RemoteControl, { sn: `AGNOSTREAM-${process.pid}`, data: { action: 'tap', x: 0.5, y: 0.5 } }));
    expect(input.reply).toMatchObject({ result: Result.Fail, data: { message: INPUT_UNSUPPORTED } });
  });
});
