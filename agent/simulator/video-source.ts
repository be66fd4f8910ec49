import fs from 'node:fs';
import {
  type Clock,
  ChunkFlag,
  Command,
  decodeRequest,
  NO_CAMERA_MESSAGE,
  parseRemoteControl,
  controlPoint,
  type ScreenPoint,
  parseStartStream,
  type RemoteControlReply,
  type RemoteControlRequest,
  Result,
  type StartStreamReply,
  type StreamAudioInfo,
  type StreamCamera,
  StreamRefusal,
  type StreamQuality,
  type TimerHandle,
} from '../../protocol/index.ts';
import type { CommandHandler, DeviceSession } from '../device-session.ts';
import { type AccessUnit, accessUnits } from '../ops/h264-access-units.ts';
import type { ScreenSize } from './identity.ts';
import { opusPacketMs, opusPackets } from './ogg-opus.ts';

/*
 * A simulated screen: short baseline H.264 clips looped as live streams. The clips were generated once
 * with ffmpeg's test pattern (one slice per picture, an IDR with SPS/PPS every half second, no B-frames):
 *
 *   ffmpeg -f lavfi -i testsrc=size=320x240:rate=30 -t 4 -c:v libx264 -profile:v baseline -level 3.0 \
 *     -pix_fmt yuv420p -g 15 -keyint_min 15 -sc_threshold 0 -bf 0 -x264-params repeat-headers=1 \
 *     -b:v 300k -f h264 agent/simulator/assets/main-320x240-30fps.h264
 *   ffmpeg -f lavfi -i testsrc=size=160x120:rate=15 -t 4 -c:v libx264 -profile:v baseline -level 3.0 \
 *     -pix_fmt yuv420p -g 8 -keyint_min 8 -sc_threshold 0 -bf 0 -x264-params repeat-headers=1 \
 *     -b:v 80k -f h264 agent/simulator/assets/sub-160x120-15fps.h264
 *
 * A key frame every half second bounds how long a new or lagging viewer waits for a picture. The
 * cameras' clips and the voice clip are described in assets/README.md. The clips are cut into pictures
 * by the same splitter as the real agent's capture (ops/h264-access-units.ts).
 */

export interface VideoClip {
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly units: readonly AccessUnit[];
}

/**
 * The clip each camera and quality loops. Each camera shows a picture of its own (the screen the test
 * pattern, the front camera a portrait pattern, the back camera colour bars with a moving box), so a
 * viewer can tell which one it is watching from the picture alone.
 */
const CLIPS: Record<StreamCamera, Record<StreamQuality, { file: string; width: number; height: number; fps: number }>> = {
  screen: {
    main: { file: 'main-320x240-30fps.h264', width: 320, height: 240, fps: 30 },
    sub: { file: 'sub-160x120-15fps.h264', width: 160, height: 120, fps: 15 },
  },
  front: {
    main: { file: 'front-240x320-15fps.h264', width: 240, height: 320, fps: 15 },
    sub: { file: 'front-120x160-15fps.h264', width: 120, height: 160, fps: 15 },
  },
  back: {
    main: { file: 'back-320x240-15fps.h264', width: 320, height: 240, fps: 15 },
    sub: { file: 'back-160x120-15fps.h264', width: 160, height: 120, fps: 15 },
  },
};

const loaded = new Map<string, VideoClip>();

/** The looped clip of one camera and quality, read once per process and shared by every simulated device. */
export function videoClip(quality: StreamQuality, camera: StreamCamera = 'screen'): VideoClip {
  const spec = CLIPS[camera][quality];
  let clip = loaded.get(spec.file);
  if (!clip) {
    const bytes = new Uint8Array(fs.readFileSync(new URL(`./assets/${spec.file}`, import.meta.url)));
    clip = { width: spec.width, height: spec.height, fps: spec.fps, units: accessUnits(bytes) };
    loaded.set(spec.file, clip);
  }
  return clip;
}

/** A looped voice clip: Opus packets of equal duration. */
export interface VoiceClip {
  readonly info: StreamAudioInfo;
  readonly packetMs: number;
  readonly packets: readonly Uint8Array[];
}

let voice: VoiceClip | undefined;

/** The simulated devices' voice (a beeping 440 Hz tone, Ogg Opus), read once per process. */
export function voiceClip(): VoiceClip {
  if (!voice) {
    const { channels, packets } = opusPackets(new Uint8Array(fs.readFileSync(new URL('./assets/voice-48k-mono.opus', import.meta.url))));
    voice = { info: { codec: 'opus', sampleRate: 48000, channels: channels === 2 ? 2 : 1 }, packetMs: opusPacketMs(packets[0] ?? new Uint8Array()) ?? 20, packets };
  }
  return voice;
}

/** What a looped stream sends: one payload per step, `stepMs` apart, with the chunk flags it needs. */
interface LoopSource {
  readonly stepMs: number;
  readonly length: number;
  payload(i: number): { bytes: Uint8Array; flags: number };
}

/**
 * A running loop: sends a source's payloads on a flow, paced at its step, until stopped. The picture and
 * the voice of a stream are two loops on one flow, each numbering its own chunks (LIVE-3).
 */
class LoopedStream {
  readonly #session: DeviceSession;
  readonly #clock: Clock;
  readonly #source: LoopSource;
  readonly #flowId: string;
  readonly #startedAt: number;
  #seq = 0;
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(session: DeviceSession, clock: Clock, source: LoopSource, flowId: string) {
    this.#session = session;
    this.#clock = clock;
    this.#source = source;
    this.#flowId = flowId;
    this.#startedAt = clock.now();
    this.#tick();
  }

  #tick(): void {
    if (this.#stopped) return;
    const { bytes, flags } = this.#source.payload(this.#seq % this.#source.length);
    try {
      this.#session.engine.sendChunk({ flowId: this.#flowId, seq: this.#seq, timestamp: this.#clock.now(), flags, payload: bytes });
    } catch {
      // Disconnected: the gateway forgets the stream with the socket; a new StartStream begins afresh.
      this.stop();
      return;
    }
    this.#seq++;
    // Paced against the start time rather than the previous tick, so timer lateness does not accumulate.
    const due = this.#startedAt + this.#seq * this.#source.stepMs;
    this.#timer = this.#clock.setTimeout(() => this.#tick(), Math.max(0, due - this.#clock.now()));
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
  }
}

const pictureLoop = (clip: VideoClip): LoopSource => ({
  stepMs: 1000 / clip.fps,
  length: clip.units.length,
  payload: (i) => {
    const unit = clip.units[i] as AccessUnit;
    return { bytes: unit.bytes, flags: unit.key ? ChunkFlag.KeyFrame : 0 };
  },
});

const voiceLoop = (clip: VoiceClip): LoopSource => ({
  stepMs: clip.packetMs,
  length: clip.packets.length,
  payload: (i) => ({ bytes: clip.packets[i] as Uint8Array, flags: ChunkFlag.Audio }),
});

/** What a simulated device keeps of what reached it, newest last, so a test can see it. */
const KEPT_PER_DEVICE = 20;

/** The last {@link KEPT_PER_DEVICE} things each simulated device received, by serial; only devices that received one take room. */
class RecentBySn<T> {
  readonly bySn = new Map<string, T[]>();

  record(sn: string, item: T): void {
    const list = this.bySn.get(sn) ?? [];
    list.push(item);
    if (list.length > KEPT_PER_DEVICE) list.shift();
    this.bySn.set(sn, list);
  }

  of(sn: string): readonly T[] {
    return this.bySn.get(sn) ?? [];
  }
}

/**
 * What simulated devices in this process received as RemoteControl. There is no screen to touch, so this
 * record is the device's side of live control: end-to-end tests assert on it.
 */
export const simulatedInputs = new RecentBySn<RemoteControlRequest>();

/** Where pointer input landed on each simulated device's screen, in its own pixels (the fractions scaled to its size). */
export const simulatedTouches = new RecentBySn<{ readonly action: RemoteControlRequest['action'] } & ScreenPoint>();

/** The support flags a simulated stream obeys (the device's own, as its SystemInfo reports them). */
export interface StreamSupport {
  /** False: a camera is refused (the screen still streams). */
  readonly camera: boolean;
  /** False: streams carry no voice. */
  readonly mic: boolean;
}

/** Camera streams each simulated device started, for end-to-end tests. */
export const simulatedStreams = new RecentBySn<StreamCamera>();

/**
 * Live-view command handlers of a simulated device: StartStream loops the clip of the asked quality and
 * camera on the gateway's flow, with the voice clip beside it where the device has a microphone, and
 * refuses a camera when the device has none; StopStream ends it; RemoteControl accepts well-formed
 * input and records it in {@link simulatedInputs} (there is no real screen to touch).
 */
export function streamHandlers(clock: Clock, support: () => Promise<StreamSupport> = async () => ({ camera: true, mic: true }), screen: ScreenSize = { width: 1080, height: 1920 }): Map<number, CommandHandler> {
  const streams = new Map<string, LoopedStream[]>();
  const end = (flowId: string) => {
    for (const loop of streams.get(flowId) ?? []) loop.stop();
    streams.delete(flowId);
  };
  const start: CommandHandler = async (req, session) => {
    const ask = parseStartStream(req.data);
    if (!ask || !req.flowId) return { result: Result.MessageError, data: { message: 'quality main or sub and a flowId are required' } };
    const can = await support();
    if (ask.camera !== 'screen' && !can.camera) return { result: Result.Fail, data: { message: NO_CAMERA_MESSAGE, reason: StreamRefusal.noCamera } };
    end(req.flowId);
    const clip = videoClip(ask.quality, ask.camera);
    const audio = can.mic ? voiceClip() : undefined;
    const reply: StartStreamReply = { flowId: req.flowId, quality: ask.quality, camera: ask.camera, codec: 'h264', width: clip.width, height: clip.height, fps: clip.fps, ...(audio && { audio: audio.info }) };
    const flowId = req.flowId;
    simulatedStreams.record(session.sn, ask.camera);
    // Frames begin after the reply, so the gateway knows the flow before its first chunk arrives.
    return {
      result: Result.Success,
      data: reply,
      afterReply: () => streams.set(flowId, [new LoopedStream(session, clock, pictureLoop(clip), flowId), ...(audio ? [new LoopedStream(session, clock, voiceLoop(audio), flowId)] : [])]),
    };
  };
  const stop: CommandHandler = async (req) => {
    const flowId = decodeRequest(Command.StopStream, req.data)?.data.flowId ?? req.flowId;
    if (typeof flowId !== 'string') return { result: Result.MessageError, data: { message: 'flowId is required' } };
    end(flowId);
    return { result: Result.Success };
  };
  let clipboard = '';
  const control: CommandHandler = async (req, session) => {
    const input = parseRemoteControl(req.data);
    if (!input) return { result: Result.MessageError, data: { message: 'invalid remote control input' } };
    simulatedInputs.record(session.sn, input);
    const at = controlPoint(input, screen);
    if (at) simulatedTouches.record(session.sn, { action: input.action, ...at });
    // The simulated clipboard: what was set (or typed as text, as a paste would read it) is read back.
    if (input.action === 'clipboard' && input.text === undefined) return { result: Result.Success, data: { applied: input.action, text: clipboard } satisfies RemoteControlReply };
    if (input.action === 'clipboard' && input.text !== undefined) clipboard = input.text;
    return { result: Result.Success, data: { applied: input.action, ...(at && { at }) } satisfies RemoteControlReply };
  };
  return new Map([
    [Command.StartStream, start],
    [Command.StopStream, stop],
    [Command.RemoteControl, control],
  ]);
}
