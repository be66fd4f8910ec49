import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { videoClip, voiceClip } from '../agent/simulator/video-source.ts';
import { ChunkFlag, Command, encodeChunk, type Envelope, msgpackCodec, Result, type StartStreamReply } from '../protocol/index.ts';
import { type FrameSink, type LiveRecorder, StreamFanout } from '../server/gateway/stream-fanout.ts';
import { CastWriter } from '../server/recordings/asciicast.ts';
import { LiveFileWriter } from '../server/recordings/live-file.ts';
import { exportLiveMp4 } from '../server/recordings/mp4-export.ts';
import type { BenchRow } from './table.ts';

// The cost of recording on the gateway (issue 22), per minute of session, against the same gateway work
// unrecorded, measured in the same run (medians of five minutes each, interleaved):
//
// Shell: a busy minute of terminal output (a 2 KB screen redraw every 100 ms, as `top` or a build log
// gives, ANSI colours and UTF-8 included) and typing (a keystroke every 200 ms). Unrecorded, the gateway
// relays each output message to the console (one envelope encoded per message); recorded, the same and
// each event through CastWriter to its .cast file.
//
// Live view: a minute of the simulator's main stream (H.264 320x240 at 30 fps, a key frame every 15
// pictures, about 300 kbit/s) with its voice (Opus, 50 packets a second), as chunk frames from the device.
// Unrecorded, the fan-out copies each frame to one watching console; recorded, the same console's
// recording also appends each frame to its .live file.
const MINUTE_MS = 60_000;
const REDRAW_MS = 100;
const KEY_MS = 200;
const SCREEN = `\u001b[H\u001b[2J${Array.from({ length: 24 }, (_, i) => `\u001b[3${i % 8}m${`pid ${1000 + i} cpu ${(i * 1.7).toFixed(1)}% 内存 `.padEnd(80, '·')}\u001b[0m\r\n`).join('')}`.slice(0, 2048);

interface Minute {
  readonly cpuMs: number;
  /** Bytes written to disk (recorded) or relayed to the console (unrecorded). */
  readonly bytes: number;
}

const cpuSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

async function shellMinute(file: string | undefined): Promise<Minute> {
  let now = 1_700_000_000_000;
  const codec = msgpackCodec;
  const start = process.cpuUsage();
  const w = file === undefined ? undefined : new CastWriter(file, { width: 80, height: 24, startedAt: now }, () => now);
  let relayed = 0;
  for (let t = 0; t < MINUTE_MS; t += REDRAW_MS) {
    now += REDRAW_MS;
    // What the gateway does unrecorded: the device's output message encoded for the console's socket.
    const env: Envelope = { msgId: Command.Shell, sn: 'BENCH1', flowId: 'shbench', data: { output: SCREEN } };
    relayed += codec.encode(env).length;
    w?.output(SCREEN);
    if (t % KEY_MS === 0) {
      relayed += codec.encode({ msgId: Command.Shell, sn: 'BENCH1', flowId: 'shbench', cid: `k${t}`, data: { op: 'write', data: 'j' } }).length;
      w?.input('j');
    }
  }
  await w?.close();
  return { cpuMs: cpuSince(start), bytes: w ? w.bytes : relayed };
}

/** A minute of the simulator's stream as chunk frames on one flow, in arrival order (made once, outside the measure). */
function liveFrames(flowId: string): Uint8Array[] {
  const clip = videoClip('main');
  const voice = voiceClip();
  const frames: { at: number; frame: Uint8Array }[] = [];
  const pictures = (MINUTE_MS / 1000) * clip.fps;
  for (let i = 0; i < pictures; i++) {
    const unit = clip.units[i % clip.units.length];
    if (!unit) continue;
    const at = (i * 1000) / clip.fps;
    frames.push({ at, frame: encodeChunk({ flowId, seq: i, timestamp: 1_700_000_000_000 + at, flags: unit.key ? ChunkFlag.KeyFrame : 0, payload: unit.bytes }) });
  }
  for (let i = 0; i * voice.packetMs < MINUTE_MS; i++) {
    const packet = voice.packets[i % voice.packets.length];
    if (!packet) continue;
    const at = i * voice.packetMs;
    frames.push({ at, frame: encodeChunk({ flowId, seq: i, timestamp: 1_700_000_000_000 + at, flags: ChunkFlag.Audio, payload: packet }) });
  }
  return frames.sort((a, b) => a.at - b.at).map((f) => f.frame);
}

async function liveMinute(file: string | undefined): Promise<Minute> {
  const clip = videoClip('main');
  let reply: StartStreamReply | undefined;
  let writer: LiveFileWriter | undefined;
  const recorder: LiveRecorder | undefined =
    file === undefined
      ? undefined
      : {
          beginLive: async ({ sn, stream }) => {
            const w = new LiveFileWriter(file, { version: 1, sn, startedAt: 1_700_000_000_000, codec: 'h264', width: stream.width, height: stream.height, fps: stream.fps, ...(stream.audio && { audio: stream.audio }) });
            writer = w;
            return { recording: { id: 'bench', frame: (f) => w.frame(f), end: () => w.close() } };
          },
        };
  const fanout = new StreamFanout({
    command: async (sn, msgId, _data, opts) => {
      reply = { flowId: opts.flowId, quality: 'main', codec: 'h264', width: clip.width, height: clip.height, fps: clip.fps, audio: voiceClip().info };
      return { msgId, sn, result: Result.Success, data: msgId === Command.StartStream ? reply : undefined };
    },
    orgOf: () => 1,
    findDevice: async () => ({ orgId: 1, online: true }),
    ...(recorder && { recorder: () => recorder }),
  });
  let relayed = 0;
  // A console whose socket keeps up (nothing queued): every frame is sent.
  const sink: FrameSink = { bufferedAmount: 0, open: true, sendFrame: (f) => void (relayed += f.length), sendMessage: () => undefined };
  const console = { account: 'bench', permissions: new Set(['device_live_view']), scope: new Set([1]), sink };
  await new Promise<void>((resolve) => fanout.fromConsole(console, { msgId: Command.StartStream, sn: 'BENCH1', data: { quality: 'main', audio: true } }, () => resolve()));
  const frames = liveFrames(reply?.flowId ?? '');
  const start = process.cpuUsage();
  for (const frame of frames) fanout.fromDevice('BENCH1', frame);
  await writer?.close();
  const cpuMs = cpuSince(start);
  return { cpuMs, bytes: writer ? writer.bytes : relayed };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function runRecordingBench(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rec-bench-'));
  try {
    // Warm-up, then five minutes of each, recorded and not, interleaved.
    await shellMinute(path.join(dir, 'w.cast'));
    await shellMinute(undefined);
    await liveMinute(path.join(dir, 'w.live'));
    await liveMinute(undefined);
    const shell = { rec: [] as Minute[], base: [] as Minute[] };
    const live = { rec: [] as Minute[], base: [] as Minute[] };
    for (let i = 0; i < 5; i++) {
      shell.rec.push(await shellMinute(path.join(dir, `s${i}.cast`)));
      shell.base.push(await shellMinute(undefined));
      live.rec.push(await liveMinute(path.join(dir, `l${i}.live`)));
      live.base.push(await liveMinute(undefined));
    }
    // Export of one recorded minute to MP4 (on download, not while the session runs).
    const exportStart = process.cpuUsage();
    const mp4Bytes = await exportLiveMp4(path.join(dir, 'l0.live'), path.join(dir, 'l0.mp4'));
    const exportMs = cpuSince(exportStart);
    const cpu = (m: readonly Minute[]) => median(m.map((x) => x.cpuMs));
    const kib = (m: readonly Minute[]) => median(m.map((x) => x.bytes)) / 1024;
    return [
      { name: 'shell: gateway CPU per minute, recorded (baseline: relayed unrecorded)', value: cpu(shell.rec), unit: 'ms', baseline: cpu(shell.base), target: '< 100 ms (0.2% of a core)' },
      { name: 'shell: bytes per minute on disk (baseline: bytes relayed to the console)', value: kib(shell.rec), unit: 'KiB', baseline: kib(shell.base) },
      { name: 'live 30 fps: gateway CPU per minute, recorded (baseline: fan-out unrecorded)', value: cpu(live.rec), unit: 'ms', baseline: cpu(live.base), target: '< 300 ms (0.5% of a core)' },
      { name: 'live 30 fps: bytes per minute on disk (baseline: bytes relayed to the console)', value: kib(live.rec), unit: 'KiB', baseline: kib(live.base) },
      { name: 'live: MP4 export of one recorded minute, CPU (on download)', value: exportMs, unit: 'ms' },
      { name: 'live: MP4 size of one recorded minute (baseline: its .live file)', value: mp4Bytes / 1024, unit: 'KiB', baseline: live.rec[0] ? live.rec[0].bytes / 1024 : undefined },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
