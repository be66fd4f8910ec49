import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import {
  type Clock,
  ChunkFlag,
  Command,
  MAX_CHUNK_PAYLOAD,
  parseRemoteControl,
  parseStartStream,
  type RemoteControlRequest,
  Result,
  type StartStreamReply,
  type StreamQuality,
} from '../../protocol/index.ts';
import type { CommandHandler, CommandOutcome, DeviceSession } from '../device-session.ts';
import { AccessUnitSplitter } from '../simulator/video-source.ts';

/** What the agent's live view runs: a capture command and the picture it produces. */
export interface ScreenStreamConfig {
  /** Prints H.264 Annex B (baseline, no B-frames) on stdout until killed; unset: live view is unsupported. */
  readonly cmd: string | undefined;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** Applies one live-control input (INPUT_* in its environment); unset: live control is unsupported. */
  readonly inputCmd: string | undefined;
  readonly log: (line: string) => void;
}

export const STREAM_UNSUPPORTED = 'This device cannot stream its screen (set AGENT_STREAM_CMD)';
export const INPUT_UNSUPPORTED = 'This device cannot take remote input (set AGENT_INPUT_CMD)';
const run = promisify(execFile);

/** Reads AGENT_STREAM_CMD, AGENT_STREAM_SIZE (WxH, default 1280x720), AGENT_STREAM_FPS (default 30) and AGENT_INPUT_CMD. */
export function screenStreamConfig(env: NodeJS.ProcessEnv, log: (line: string) => void): ScreenStreamConfig {
  const size = /^(\d{2,5})x(\d{2,5})$/.exec(env.AGENT_STREAM_SIZE ?? '') ?? [];
  const fps = Number(env.AGENT_STREAM_FPS ?? 30);
  return {
    cmd: env.AGENT_STREAM_CMD || undefined,
    width: Number(size[1] ?? 1280),
    height: Number(size[2] ?? 720),
    fps: Number.isFinite(fps) && fps > 0 && fps <= 120 ? fps : 30,
    inputCmd: env.AGENT_INPUT_CMD || undefined,
    log,
  };
}

/**
 * One capture command feeding one flow: its stdout is cut into access units with the simulator's
 * splitter and each unit goes out as a chunk (KeyFrame on IDR units, timestamp = capture time), as
 * the simulated devices do. Killed with its children (ffmpeg under /bin/sh) on stop or disconnect.
 */
class CaptureStream {
  readonly #child: ChildProcess;
  #seq = 0;
  #stopped = false;

  constructor(session: DeviceSession, clock: Clock, cfg: ScreenStreamConfig, flowId: string, quality: StreamQuality, size: { width: number; height: number }) {
    // Its own process group, so stopping reaches the capture tool and not only the shell around it.
    this.#child = spawn('/bin/sh', ['-c', cfg.cmd as string], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, STREAM_QUALITY: quality, STREAM_WIDTH: String(size.width), STREAM_HEIGHT: String(size.height), STREAM_FPS: String(cfg.fps) },
    });
    const splitter = new AccessUnitSplitter();
    const send = (units: readonly { bytes: Uint8Array; key: boolean }[]) => {
      for (const unit of units) {
        if (this.#stopped) return;
        // A picture too big for one chunk is skipped; the viewer waits for the next key frame.
        if (unit.bytes.length > MAX_CHUNK_PAYLOAD) continue;
        try {
          session.engine.sendChunk({ flowId, seq: this.#seq++, timestamp: clock.now(), flags: unit.key ? ChunkFlag.KeyFrame : 0, payload: unit.bytes });
        } catch {
          // Disconnected: the gateway forgot the stream with the socket; a new StartStream begins afresh.
          this.stop();
        }
      }
    };
    this.#child.stdout?.on('data', (b: Buffer) => send(splitter.push(new Uint8Array(b.buffer, b.byteOffset, b.byteLength))));
    let stderr = '';
    this.#child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-500)));
    this.#child.on('error', (err) => cfg.log(`stream command failed: ${err.message}`));
    this.#child.on('close', (code) => {
      send(splitter.end());
      if (!this.#stopped) cfg.log(`stream command ended (${code ?? 'signal'})${stderr ? `: ${stderr.trim()}` : ''}`);
      this.#stopped = true;
    });
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
 * Live view on the real agent (65565 / 65611 / 65568): StartStream runs the capture command on the
 * gateway's flow, StopStream (or a disconnect) kills it, RemoteControl runs the input command. Without AGENT_STREAM_CMD both answer result 1 with
 * {@link STREAM_UNSUPPORTED} (and RemoteControl without AGENT_INPUT_CMD {@link INPUT_UNSUPPORTED}), as
 * screenshots do without AGENT_SCREENSHOT_CMD. The sub stream asks the
 * command for half the size (STREAM_WIDTH/HEIGHT in its environment; the command decides how to honour it).
 */
export function screenStreamHandlers(cfg: ScreenStreamConfig, clock: Clock): { handlers: Map<number, CommandHandler>; stopAll(): void } {
  const streams = new Map<string, CaptureStream>();
  const unsupported: CommandOutcome = { result: Result.Fail, data: { message: STREAM_UNSUPPORTED } };
  const start: CommandHandler = async (req, session) => {
    if (!cfg.cmd) return unsupported;
    const ask = parseStartStream(req.data);
    if (!ask || !req.flowId) return { result: Result.MessageError, data: { message: 'quality main or sub and a flowId are required' } };
    const flowId = req.flowId;
    streams.get(flowId)?.stop();
    const half = ask.quality === 'sub';
    const size = { width: half ? Math.round(cfg.width / 2) : cfg.width, height: half ? Math.round(cfg.height / 2) : cfg.height };
    const reply: StartStreamReply = { flowId, quality: ask.quality, codec: 'h264', width: size.width, height: size.height, fps: cfg.fps };
    cfg.log(`live view (${ask.quality}) started: running "${cfg.cmd}"`);
    // Frames begin after the reply, so the gateway knows the flow before its first chunk arrives.
    return { result: Result.Success, data: reply, afterReply: () => streams.set(flowId, new CaptureStream(session, clock, cfg, flowId, ask.quality, size)) };
  };
  const stop: CommandHandler = async (req) => {
    if (!cfg.cmd) return unsupported;
    const flowId = (req.data as { flowId?: unknown } | undefined)?.flowId ?? req.flowId;
    if (typeof flowId !== 'string') return { result: Result.MessageError, data: { message: 'flowId is required' } };
    streams.get(flowId)?.stop();
    streams.delete(flowId);
    return { result: Result.Success };
  };
  const control: CommandHandler = async (req) => {
    if (!cfg.inputCmd) return { result: Result.Fail, data: { message: INPUT_UNSUPPORTED } };
    const input = parseRemoteControl(req.data);
    if (!input) return { result: Result.MessageError, data: { message: 'invalid remote control input' } };
    await run('/bin/sh', ['-c', cfg.inputCmd], { env: { ...process.env, ...inputEnv(input, cfg) }, timeout: 10_000 });
    return { result: Result.Success, data: { applied: input.action } };
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
 * The input command's environment: INPUT_ACTION (tap, swipe, key), picture fractions turned into pixels
 * of the main stream's size (INPUT_X, INPUT_Y; INPUT_X2, INPUT_Y2 and INPUT_DURATION_MS for a swipe),
 * or INPUT_KEY (back, home, recents, power, volume_up, volume_down).
 */
export function inputEnv(input: RemoteControlRequest, size: { width: number; height: number }): Record<string, string> {
  const px = (f: number, of: number) => String(Math.min(of - 1, Math.round(f * of)));
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
  }
}
