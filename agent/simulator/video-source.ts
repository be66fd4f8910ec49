import fs from 'node:fs';
import {
  type Clock,
  ChunkFlag,
  Command,
  parseRemoteControl,
  parseStartStream,
  type RemoteControlRequest,
  Result,
  type StartStreamReply,
  type StreamQuality,
  type TimerHandle,
} from '../../protocol/index.ts';
import type { CommandHandler, DeviceSession } from '../device-session.ts';

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
 * A key frame every half second bounds how long a new or lagging viewer waits for a picture.
 */

/** One access unit (a picture with the parameter sets before it), Annex-B bytes. */
export interface AccessUnit {
  readonly bytes: Uint8Array;
  readonly key: boolean;
}

export interface VideoClip {
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly units: readonly AccessUnit[];
}

const CLIPS: Record<StreamQuality, { file: string; width: number; height: number; fps: number }> = {
  main: { file: 'main-320x240-30fps.h264', width: 320, height: 240, fps: 30 },
  sub: { file: 'sub-160x120-15fps.h264', width: 160, height: 120, fps: 15 },
};

/** Offsets of the NAL units of an Annex-B stream (the byte after each 3- or 4-byte start code). */
function nalStarts(data: Uint8Array): number[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < data.length; i++) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  return starts;
}

/**
 * Groups an Annex-B stream into access units: parameter sets and SEI attach to the next picture, and
 * each coded slice ends a unit (the clips have one slice per picture). Start codes are kept, so each
 * unit is itself a valid Annex-B stream that a decoder can be fed.
 */
export function accessUnits(data: Uint8Array): AccessUnit[] {
  const starts = nalStarts(data);
  const units: AccessUnit[] = [];
  let unitStart = -1;
  let key = false;
  for (let n = 0; n < starts.length; n++) {
    const at = starts[n] as number;
    const begin = at - (at >= 4 && data[at - 4] === 0 ? 4 : 3);
    if (unitStart < 0) unitStart = begin;
    const type = (data[at] as number) & 0x1f;
    if (type === 5) key = true;
    if (type === 1 || type === 5) {
      const next = starts[n + 1];
      const end = next === undefined ? data.length : next - (next >= 4 && data[next - 4] === 0 ? 4 : 3);
      units.push({ bytes: data.subarray(unitStart, end), key });
      unitStart = -1;
      key = false;
    }
  }
  return units;
}

/** Bytes of Annex-B held at most while waiting for a unit to end; past it they are not H.264 and are dropped. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

/**
 * Splits an Annex-B stream that arrives in pieces (a capture command's stdout) into access units, with
 * {@link accessUnits}'s rules. A unit is let out once bytes after it have arrived (the next start code
 * shows where its last slice ends), so a live stream runs at most one picture behind its source.
 */
export class AccessUnitSplitter {
  #pending = new Uint8Array(0);

  /** Takes the next bytes; returns the units they completed. */
  push(bytes: Uint8Array): AccessUnit[] {
    const data = new Uint8Array(this.#pending.length + bytes.length);
    data.set(this.#pending);
    data.set(bytes, this.#pending.length);
    const units = accessUnits(data);
    const last = units.at(-1);
    if (!last) {
      this.#pending = data.length > MAX_PENDING_BYTES ? new Uint8Array(0) : data;
      return [];
    }
    // The last unit may be cut short, and what follows it belongs to the next: both wait for more bytes.
    this.#pending = data.slice(last.bytes.byteOffset - data.byteOffset);
    return units.slice(0, -1);
  }

  /** The source ended: the units still held. */
  end(): AccessUnit[] {
    const units = accessUnits(this.#pending);
    this.#pending = new Uint8Array(0);
    return units;
  }
}

const loaded = new Map<StreamQuality, VideoClip>();

/** The looped clip of one quality, read once per process and shared by every simulated device. */
export function videoClip(quality: StreamQuality): VideoClip {
  let clip = loaded.get(quality);
  if (!clip) {
    const spec = CLIPS[quality];
    const bytes = new Uint8Array(fs.readFileSync(new URL(`./assets/${spec.file}`, import.meta.url)));
    clip = { width: spec.width, height: spec.height, fps: spec.fps, units: accessUnits(bytes) };
    loaded.set(quality, clip);
  }
  return clip;
}

/** A running stream: sends the clip's units on a flow, paced at the clip's frame rate, until stopped. */
class LoopedStream {
  readonly #session: DeviceSession;
  readonly #clock: Clock;
  readonly #clip: VideoClip;
  readonly #flowId: string;
  readonly #startedAt: number;
  #seq = 0;
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(session: DeviceSession, clock: Clock, clip: VideoClip, flowId: string) {
    this.#session = session;
    this.#clock = clock;
    this.#clip = clip;
    this.#flowId = flowId;
    this.#startedAt = clock.now();
    this.#tick();
  }

  #tick(): void {
    if (this.#stopped) return;
    const unit = this.#clip.units[this.#seq % this.#clip.units.length] as AccessUnit;
    try {
      this.#session.engine.sendChunk({ flowId: this.#flowId, seq: this.#seq, timestamp: this.#clock.now(), flags: unit.key ? ChunkFlag.KeyFrame : 0, payload: unit.bytes });
    } catch {
      // Disconnected: the gateway forgets the stream with the socket; a new StartStream begins afresh.
      this.stop();
      return;
    }
    this.#seq++;
    // Paced against the start time rather than the previous tick, so timer lateness does not accumulate.
    const due = this.#startedAt + (this.#seq * 1000) / this.#clip.fps;
    this.#timer = this.#clock.setTimeout(() => this.#tick(), Math.max(0, due - this.#clock.now()));
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
  }
}

/** Inputs a simulated device keeps, newest last, so a test can see what reached it. */
const INPUTS_KEPT = 20;

/**
 * What simulated devices in this process received as RemoteControl, by serial (the last 20 each). There
 * is no screen to touch, so this record is the device's side of live control: end-to-end tests assert
 * on it. Only devices that received input take room.
 */
export const simulatedInputs = {
  bySn: new Map<string, RemoteControlRequest[]>(),
  record(sn: string, input: RemoteControlRequest): void {
    const list = this.bySn.get(sn) ?? [];
    list.push(input);
    if (list.length > INPUTS_KEPT) list.shift();
    this.bySn.set(sn, list);
  },
  of(sn: string): readonly RemoteControlRequest[] {
    return this.bySn.get(sn) ?? [];
  },
};

/**
 * Live-view command handlers of a simulated device: StartStream loops the clip of the asked quality on
 * the gateway's flow, StopStream ends it, RemoteControl accepts well-formed input and records it in
 * {@link simulatedInputs} (there is no real screen to touch).
 */
export function streamHandlers(clock: Clock): Map<number, CommandHandler> {
  const streams = new Map<string, LoopedStream>();
  const start: CommandHandler = async (req, session) => {
    const ask = parseStartStream(req.data);
    if (!ask || !req.flowId) return { result: Result.MessageError, data: { message: 'quality main or sub and a flowId are required' } };
    streams.get(req.flowId)?.stop();
    const clip = videoClip(ask.quality);
    const reply: StartStreamReply = { flowId: req.flowId, quality: ask.quality, codec: 'h264', width: clip.width, height: clip.height, fps: clip.fps };
    const flowId = req.flowId;
    // Frames begin after the reply, so the gateway knows the flow before its first chunk arrives.
    return { result: Result.Success, data: reply, afterReply: () => streams.set(flowId, new LoopedStream(session, clock, clip, flowId)) };
  };
  const stop: CommandHandler = async (req) => {
    const flowId = (req.data as { flowId?: unknown } | undefined)?.flowId ?? req.flowId;
    if (typeof flowId !== 'string') return { result: Result.MessageError, data: { message: 'flowId is required' } };
    streams.get(flowId)?.stop();
    streams.delete(flowId);
    return { result: Result.Success };
  };
  const control: CommandHandler = async (req, session) => {
    const input = parseRemoteControl(req.data);
    if (!input) return { result: Result.MessageError, data: { message: 'invalid remote control input' } };
    simulatedInputs.record(session.sn, input);
    return { result: Result.Success, data: { applied: input.action } };
  };
  return new Map([
    [Command.StartStream, start],
    [Command.StopStream, stop],
    [Command.RemoteControl, control],
  ]);
}
