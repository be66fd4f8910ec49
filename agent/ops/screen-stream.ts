import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import {
  type Clock,
  ChunkFlag,
  Command,
  decodeRequest,
  MAX_CHUNK_PAYLOAD,
  NO_CAMERA_MESSAGE,
  MAX_CONTROL_TEXT,
  parseRemoteControl,
  controlPixel,
  controlPoint,
  parseStartStream,
  type RemoteControlReply,
  type RemoteControlRequest,
  Result,
  type StartStreamReply,
  type StreamAudioInfo,
  type StreamCamera,
  StreamRefusal,
  type StreamQuality,
} from '../../protocol/index.ts';
import type { CommandHandler, CommandOutcome, DeviceSession } from '../device-session.ts';
import { OggOpusReader } from '../simulator/ogg-opus.ts';
import { type AccessUnit, AccessUnitSplitter } from './h264-access-units.ts';

/** What the agent's live view runs: a capture command and the picture it produces. */
export interface ScreenStreamConfig {
  /** Prints H.264 Annex B (baseline, no B-frames) on stdout until killed; unset: live view is unsupported. */
  readonly cmd: string | undefined;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** Applies one live-control input (INPUT_* in its environment); unset: live control is unsupported. */
  readonly inputCmd: string | undefined;
  /** Prints Ogg Opus (48 kHz) on stdout until killed, the stream's voice; unset: streams carry no voice. */
  readonly audioCmd: string | undefined;
  /**
   * Whether the device has a camera (the support flag's rule: /dev/video0 exists). Without one, a
   * camera is refused; with one, the capture command is told which picture to take (STREAM_CAMERA).
   */
  readonly hasCamera: boolean;
  readonly log: (line: string) => void;
}

/** The voice AGENT_AUDIO_CMD is declared to produce. Opus decoders output the channels configured whatever a packet holds, so a stereo source plays too. */
const AGENT_AUDIO: StreamAudioInfo = { codec: 'opus', sampleRate: 48000, channels: 1 };

export const STREAM_UNSUPPORTED = 'This device cannot stream its screen (set AGENT_STREAM_CMD)';
export const INPUT_UNSUPPORTED = 'This device cannot take remote input (set AGENT_INPUT_CMD)';
const run = promisify(execFile);

/**
 * The input command used when AGENT_INPUT_CMD is unset and xdotool is on the PATH with a DISPLAY (an X
 * session): pointer actions with the left button, scroll as wheel clicks (buttons 4-7), keys as a desktop's
 * nearest equivalents, text typed as is, and the clipboard through xclip (refused, exit 3, without it).
 */
export const XDOTOOL_INPUT_CMD = [
  'case "$INPUT_ACTION" in',
  'tap) exec xdotool mousemove "$INPUT_X" "$INPUT_Y" click 1 ;;',
  'swipe) exec xdotool mousemove "$INPUT_X" "$INPUT_Y" mousedown 1 mousemove "$INPUT_X2" "$INPUT_Y2" mouseup 1 ;;',
  'long_press) exec xdotool mousemove "$INPUT_X" "$INPUT_Y" mousedown 1 sleep "$INPUT_SECONDS" mouseup 1 ;;',
  'scroll) xdotool mousemove "$INPUT_X" "$INPUT_Y"',
  '  if [ "$INPUT_DY" -gt 0 ]; then xdotool click --repeat "$INPUT_DY" 5; elif [ "$INPUT_DY" -lt 0 ]; then xdotool click --repeat "${INPUT_DY#-}" 4; fi',
  '  if [ "$INPUT_DX" -gt 0 ]; then xdotool click --repeat "$INPUT_DX" 7; elif [ "$INPUT_DX" -lt 0 ]; then xdotool click --repeat "${INPUT_DX#-}" 6; fi ;;',
  'text) exec xdotool type --delay 0 -- "$INPUT_TEXT" ;;',
  'key) case "$INPUT_KEY" in back) k=alt+Left ;; home) k=super ;; recents) k=alt+Tab ;; power) k=XF86PowerOff ;; volume_up) k=XF86AudioRaiseVolume ;; volume_down) k=XF86AudioLowerVolume ;; esac; exec xdotool key "$k" ;;',
  'clipboard_set) command -v xclip >/dev/null || { echo "xclip is not installed" >&2; exit 3; }; printf %s "$INPUT_TEXT" | xclip -selection clipboard ;;',
  'clipboard_get) command -v xclip >/dev/null || { echo "xclip is not installed" >&2; exit 3; }; exec xclip -selection clipboard -o ;;',
  'esac',
].join('\n');

/** True when an executable `name` is in one of the PATH's directories. */
function onPath(name: string, path: string | undefined): boolean {
  return (path ?? '').split(':').some((dir) => {
    try {
      fs.accessSync(`${dir || '.'}/${name}`, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Reads AGENT_STREAM_CMD, AGENT_STREAM_SIZE (WxH, default 1280x720), AGENT_STREAM_FPS (default 30),
 * AGENT_INPUT_CMD and AGENT_AUDIO_CMD; `hasCamera` defaults to the camera support flag's rule.
 */
export function screenStreamConfig(env: NodeJS.ProcessEnv, log: (line: string) => void, hasCamera = fs.existsSync('/dev/video0')): ScreenStreamConfig {
  const size = /^(\d{2,5})x(\d{2,5})$/.exec(env.AGENT_STREAM_SIZE ?? '') ?? [];
  const fps = Number(env.AGENT_STREAM_FPS ?? 30);
  return {
    cmd: env.AGENT_STREAM_CMD || undefined,
    width: Number(size[1] ?? 1280),
    height: Number(size[2] ?? 720),
    fps: Number.isFinite(fps) && fps > 0 && fps <= 120 ? fps : 30,
    inputCmd: env.AGENT_INPUT_CMD || (onPath('xdotool', env.PATH) && env.DISPLAY ? XDOTOOL_INPUT_CMD : undefined),
    audioCmd: env.AGENT_AUDIO_CMD || undefined,
    hasCamera,
    log,
  };
}

/**
 * A capture command in its own process group (so stopping reaches the capture tool and not only the
 * shell around it), its stdout handed on as it arrives; killed with its children on stop.
 */
class CaptureProcess {
  readonly #child: ChildProcess;
  #stopped = false;

  constructor(cmd: string, env: NodeJS.ProcessEnv, label: string, log: (line: string) => void, onData: (bytes: Uint8Array) => void, onEnd: () => void) {
    this.#child = spawn('/bin/sh', ['-c', cmd], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    this.#child.stdout?.on('data', (b: Buffer) => {
      if (!this.#stopped) onData(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
    });
    let stderr = '';
    this.#child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-500)));
    this.#child.on('error', (err) => log(`${label} command failed: ${err.message}`));
    this.#child.on('close', (code) => {
      if (!this.#stopped) onEnd();
      if (!this.#stopped) log(`${label} command ended (${code ?? 'signal'})${stderr ? `: ${stderr.trim()}` : ''}`);
      this.#stopped = true;
    });
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    const pid = this.#child.pid;
    try {
      if (pid) process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/**
 * One stream's capture feeding one flow: the picture command's stdout is cut into access units (whole
 * pictures, however many slices the encoder writes: x264's -tune zerolatency writes one per thread) and
 * each unit goes out as a chunk (KeyFrame on IDR units, timestamp = capture time), as the simulated
 * devices do; the voice command's Ogg Opus is cut into packets, each a chunk
 * flagged Audio with a sequence of its own (LIVE-3). Both are killed with their children (ffmpeg under
 * /bin/sh) on stop or disconnect.
 */
class CaptureStream {
  readonly #processes: CaptureProcess[] = [];

  constructor(session: DeviceSession, clock: Clock, cfg: ScreenStreamConfig, flowId: string, ask: { quality: StreamQuality; camera: StreamCamera }, size: { width: number; height: number }) {
    const send = (seq: () => number, flags: number, payload: Uint8Array) => {
      try {
        session.engine.sendChunk({ flowId, seq: seq(), timestamp: clock.now(), flags, payload });
      } catch {
        // Disconnected: the gateway forgot the stream with the socket; a new StartStream begins afresh.
        this.stop();
      }
    };
    let videoSeq = 0;
    const splitter = new AccessUnitSplitter();
    const sendUnits = (units: readonly AccessUnit[]) => {
      for (const unit of units) {
        // A picture too big for one chunk is skipped; the viewer waits for the next key frame.
        if (unit.bytes.length <= MAX_CHUNK_PAYLOAD) send(() => videoSeq++, unit.key ? ChunkFlag.KeyFrame : 0, unit.bytes);
      }
    };
    const env = { ...process.env, STREAM_QUALITY: ask.quality, STREAM_CAMERA: ask.camera, STREAM_WIDTH: String(size.width), STREAM_HEIGHT: String(size.height), STREAM_FPS: String(cfg.fps) };
    this.#processes.push(new CaptureProcess(cfg.cmd as string, env, 'stream', cfg.log, (b) => sendUnits(splitter.push(b)), () => sendUnits(splitter.end())));
    if (cfg.audioCmd) {
      let audioSeq = 0;
      const reader = new OggOpusReader();
      const audio = new CaptureProcess(cfg.audioCmd, { ...process.env, STREAM_CAMERA: ask.camera }, 'audio', cfg.log, (b) => {
        for (const packet of reader.push(b)) send(() => audioSeq++, ChunkFlag.Audio, packet);
      }, () => undefined);
      this.#processes.push(audio);
    }
  }

  stop(): void {
    for (const p of this.#processes) p.stop();
  }
}

/**
 * Live view on the real agent (65565 / 65611 / 65568): StartStream runs the capture command on the
 * gateway's flow (and the voice command beside it when AGENT_AUDIO_CMD is set; the reply's `audio` says
 * so), StopStream (or a disconnect) kills them, RemoteControl runs the input command. Without
 * AGENT_STREAM_CMD both answer result 1 with {@link STREAM_UNSUPPORTED} (and RemoteControl without
 * AGENT_INPUT_CMD {@link INPUT_UNSUPPORTED}), as screenshots do without AGENT_SCREENSHOT_CMD. The sub
 * stream asks the command for half the size (STREAM_WIDTH/HEIGHT in its environment; the command
 * decides how to honour it); a camera is passed as STREAM_CAMERA (front or back; screen otherwise) and
 * refused with reason no_camera on a device without one.
 */
export function screenStreamHandlers(cfg: ScreenStreamConfig, clock: Clock): { handlers: Map<number, CommandHandler>; stopAll(): void } {
  const streams = new Map<string, CaptureStream>();
  const unsupported: CommandOutcome = { result: Result.Fail, data: { message: STREAM_UNSUPPORTED } };
  const start: CommandHandler = async (req, session) => {
    if (!cfg.cmd) return unsupported;
    const ask = parseStartStream(req.data);
    if (!ask || !req.flowId) return { result: Result.MessageError, data: { message: 'quality main or sub and a flowId are required' } };
    if (ask.camera !== 'screen' && !cfg.hasCamera) return { result: Result.Fail, data: { message: NO_CAMERA_MESSAGE, reason: StreamRefusal.noCamera } };
    const flowId = req.flowId;
    streams.get(flowId)?.stop();
    const half = ask.quality === 'sub';
    const size = { width: half ? Math.round(cfg.width / 2) : cfg.width, height: half ? Math.round(cfg.height / 2) : cfg.height };
    const reply: StartStreamReply = { flowId, quality: ask.quality, camera: ask.camera, codec: 'h264', width: size.width, height: size.height, fps: cfg.fps, ...(cfg.audioCmd && { audio: AGENT_AUDIO }) };
    cfg.log(`live view (${ask.quality}, ${ask.camera}${cfg.audioCmd ? ', with voice' : ''}) started: running "${cfg.cmd}"`);
    // Frames begin after the reply, so the gateway knows the flow before its first chunk arrives.
    return { result: Result.Success, data: reply, afterReply: () => streams.set(flowId, new CaptureStream(session, clock, cfg, flowId, ask, size)) };
  };
  const stop: CommandHandler = async (req) => {
    if (!cfg.cmd) return unsupported;
    const flowId = decodeRequest(Command.StopStream, req.data)?.data.flowId ?? req.flowId;
    if (typeof flowId !== 'string') return { result: Result.MessageError, data: { message: 'flowId is required' } };
    streams.get(flowId)?.stop();
    streams.delete(flowId);
    return { result: Result.Success };
  };
  const control: CommandHandler = async (req) => {
    if (!cfg.inputCmd) return { result: Result.Fail, data: { message: INPUT_UNSUPPORTED } };
    const input = parseRemoteControl(req.data);
    if (!input) return { result: Result.MessageError, data: { message: 'invalid remote control input' } };
    let stdout: string;
    try {
      ({ stdout } = await run('/bin/sh', ['-c', cfg.inputCmd], { env: { ...process.env, ...inputEnv(input, cfg) }, timeout: 10_000, maxBuffer: 1 << 20 }));
    } catch (err) {
      const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim().slice(0, 200);
      return { result: Result.Fail, data: { message: `The input command failed (${input.action})${stderr ? `: ${stderr}` : ''}` } };
    }
    // A clipboard read answers with what the command printed.
    const read = input.action === 'clipboard' && input.text === undefined;
    const at = controlPoint(input, cfg);
    return { result: Result.Success, data: { applied: input.action, ...(read && { text: stdout.slice(0, MAX_CONTROL_TEXT) }), ...(at && { at }) } satisfies RemoteControlReply };
  };
  return {
    handlers: new Map([
      [Command.StartStream, start],
      [Command.StopStream, stop],
      [Command.RemoteControl, control],
    ]),
    stopAll: () => {
      for (const s of streams.values()) s.stop();
      streams.clear();
    },
  };
}

/**
 * The input command's environment: INPUT_ACTION (tap, swipe, key, text, scroll, long_press, clipboard_set,
 * clipboard_get; INPUT_TEXT for text and clipboard_set, INPUT_DX/INPUT_DY wheel steps for scroll, INPUT_DURATION_MS
 * and INPUT_SECONDS for long_press), picture fractions turned into pixels
 * of the main stream's size (INPUT_X, INPUT_Y; INPUT_X2, INPUT_Y2 and INPUT_DURATION_MS for a swipe),
 * or INPUT_KEY (back, home, recents, power, volume_up, volume_down).
 */
export function inputEnv(input: RemoteControlRequest, size: { width: number; height: number }): Record<string, string> {
  const px = (f: number, of: number) => String(controlPixel(f, of));
  switch (input.action) {
    case 'tap':
      return { INPUT_ACTION: 'tap', INPUT_X: px(input.x, size.width), INPUT_Y: px(input.y, size.height) };
    case 'swipe':
      return {
        INPUT_ACTION: 'swipe',
        INPUT_X: px(input.x1, size.width),
        INPUT_Y: px(input.y1, size.height),
        INPUT_X2: px(input.x2, size.width),
        INPUT_Y2: px(input.y2, size.height),
        INPUT_DURATION_MS: String(input.durationMs),
      };
    case 'key':
      return { INPUT_ACTION: 'key', INPUT_KEY: input.key };
    case 'text':
      return { INPUT_ACTION: 'text', INPUT_TEXT: input.text };
    case 'scroll':
      return { INPUT_ACTION: 'scroll', INPUT_X: px(input.x, size.width), INPUT_Y: px(input.y, size.height), INPUT_DX: String(input.dx), INPUT_DY: String(input.dy) };
    case 'longPress':
      return { INPUT_ACTION: 'long_press', INPUT_X: px(input.x, size.width), INPUT_Y: px(input.y, size.height), INPUT_DURATION_MS: String(input.durationMs), INPUT_SECONDS: (input.durationMs / 1000).toFixed(3) };
    case 'clipboard':
      return input.text === undefined ? { INPUT_ACTION: 'clipboard_get' } : { INPUT_ACTION: 'clipboard_set', INPUT_TEXT: input.text };
  }
}
