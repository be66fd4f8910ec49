import {
  ChunkFlag,
  Command,
  type Envelope,
  parseStartStream,
  peekChunkFlowId,
  Result,
  type ResultCode,
  type StartStreamReply,
  type StreamQuality,
} from '../../protocol/index.ts';
import { Message } from '../http/envelope.ts';
import { registerCommandPermission } from './command-permissions.ts';
import type { ConsoleLink } from './console-endpoint.ts';

/**
 * Bytes a viewer's socket may have queued before its frames are dropped. About a second of the main
 * stream: enough to ride out a short stall without dropping, small enough that a viewer who falls
 * behind is never more than a moment late. Past it the viewer skips to the next key frame, so its
 * picture jumps to now instead of playing minutes late, and the gateway's memory stays bounded.
 */
export const VIEWER_LAG_BYTES = 256 * 1024;

/** Where a viewer's frames go: a console socket, or a fake one in tests. */
export interface FrameSink {
  /** Bytes accepted by send() but not yet written to the network. */
  readonly bufferedAmount: number;
  readonly open: boolean;
  sendFrame(frame: Uint8Array): void;
  /** A message about the stream (the device went away). */
  sendMessage(env: Envelope): void;
}

/**
 * One console watching one stream. The drop policy: a viewer starts at a key frame; when its socket has
 * more than `lagBytes` queued, the frame is dropped and so is everything up to the next key frame (a
 * P-frame without its predecessors would only show corruption).
 */
export class Viewer {
  readonly sink: FrameSink;
  readonly #lagBytes: number;
  #waitingForKey = true;
  sent = 0;
  dropped = 0;

  constructor(sink: FrameSink, lagBytes = VIEWER_LAG_BYTES) {
    this.sink = sink;
    this.#lagBytes = lagBytes;
  }

  /** True while the viewer skips frames until the next key frame. */
  get waitingForKey(): boolean {
    return this.#waitingForKey;
  }

  /** Offers one frame; returns whether it was sent. */
  offer(frame: Uint8Array, key: boolean): boolean {
    if (!this.sink.open || (this.#waitingForKey && !key) || this.sink.bufferedAmount > this.#lagBytes) {
      if (this.sink.open) this.#waitingForKey = true;
      this.dropped++;
      return false;
    }
    this.sink.sendFrame(frame);
    this.#waitingForKey = false;
    this.sent++;
    return true;
  }
}

/** The console behind a viewer, as the fan-out needs it. */
export interface StreamConsole {
  readonly permissions: ReadonlySet<string>;
  readonly scope: ReadonlySet<number>;
  readonly sink: FrameSink;
}

export interface StreamFanoutDeps {
  /** Sends a command to the device (the gateway's command routing). */
  readonly command: (sn: string, msgId: number, data: unknown, opts: { flowId: string; timeoutMs?: number }) => Promise<Envelope>;
  /** The organisation of a device connected to this node; undefined when it is not connected here. */
  readonly orgOf: (sn: string) => number | undefined;
  readonly lagBytes?: number;
}

interface LiveStream {
  readonly sn: string;
  readonly quality: StreamQuality;
  readonly flowId: string;
  readonly viewers: Map<StreamConsole, Viewer>;
  /** Settles with the device's StartStream reply. */
  readonly started: Promise<Envelope>;
  reply: StartStreamReply | undefined;
}

export type Answer = (result: ResultCode, data?: unknown) => void;

/**
 * Live view fan-out: the device encodes one stream per quality, however many consoles watch it, and
 * the gateway copies each frame to every viewer under the drop policy of {@link Viewer}. The stream is
 * started on the first viewer and stopped when the last one leaves. Streams are served by the node the
 * device is connected to (a console on another node gets result 5; docs/DECISIONS.md).
 */
export class StreamFanout {
  readonly #deps: StreamFanoutDeps;
  readonly #byKey = new Map<string, LiveStream>();
  readonly #byFlow = new Map<string, LiveStream>();
  #nextFlow = 0;

  constructor(deps: StreamFanoutDeps) {
    this.#deps = deps;
    registerCommandPermission(Command.StartStream, 'device_live_view');
    registerCommandPermission(Command.StopStream, 'device_live_view');
    registerCommandPermission(Command.RemoteControl, 'device_live_control');
  }

  /** True for the console commands the fan-out answers itself. */
  handles(msgId: number): boolean {
    return msgId === Command.StartStream || msgId === Command.StopStream;
  }

  /** Streams running (for tests and metrics). */
  get streamCount(): number {
    return this.#byKey.size;
  }

  /** The viewers of a flow (for tests and metrics). */
  viewersOf(flowId: string): readonly Viewer[] {
    return [...(this.#byFlow.get(flowId)?.viewers.values() ?? [])];
  }

  readonly #linkConsoles = new WeakMap<ConsoleLink, StreamConsole>();

  /** The viewer identity of a console socket: its caller's keys and scope, and its socket as the sink. */
  #consoleOf(link: ConsoleLink): StreamConsole {
    let found = this.#linkConsoles.get(link);
    if (!found) {
      const ws = link.peer.ws;
      found = {
        permissions: link.caller.permissions,
        scope: link.caller.scope,
        sink: {
          get bufferedAmount() {
            return ws.bufferedAmount;
          },
          get open() {
            return ws.readyState === ws.OPEN;
          },
          sendFrame: (frame) => void link.peer.sendRaw(frame),
          sendMessage: (env) => void link.peer.send(env),
        },
      };
      this.#linkConsoles.set(link, found);
    }
    return found;
  }

  /** Handles StartStream or StopStream from a console socket (the console endpoint's hook). */
  fromConsoleLink(link: ConsoleLink, env: Envelope, answer: Answer): void {
    this.fromConsole(this.#consoleOf(link), env, answer);
  }

  /** A console socket closed (the console endpoint's hook). */
  consoleLinkGone(link: ConsoleLink): void {
    const found = this.#linkConsoles.get(link);
    if (found) this.consoleGone(found);
  }

  /** Handles a console's StartStream or StopStream; `answer` sends the reply to that console. */
  fromConsole(console: StreamConsole, env: Envelope, answer: Answer): void {
    const sn = env.sn;
    if (!sn) return answer(Result.MessageError, { message: 'sn is required' });
    if (env.msgId === Command.StopStream) {
      const flowId = (env.data as { flowId?: unknown } | undefined)?.flowId ?? env.flowId;
      const stream = typeof flowId === 'string' ? this.#byFlow.get(flowId) : undefined;
      if (stream && stream.sn === sn) this.#leave(stream, console);
      return answer(Result.Success);
    }
    const ask = parseStartStream(env.data);
    if (!ask) return answer(Result.MessageError, { message: 'quality must be main or sub' });
    const orgId = this.#deps.orgOf(sn);
    if (!console.permissions.has('device_live_view')) return answer(Result.Fail, { message: Message.PermissionDenied });
    // A device not connected here: offline, or on another node (live view is served where the device is).
    if (orgId === undefined) return answer(Result.DeviceOffline);
    if (!console.scope.has(orgId)) return answer(Result.Fail, { message: Message.PermissionDenied });
    this.#watch(console, sn, ask.quality).then(
      (reply) => answer(reply.result ?? Result.Fail, reply.data),
      () => answer(Result.Fail),
    );
  }

  async #watch(console: StreamConsole, sn: string, quality: StreamQuality): Promise<Envelope> {
    const key = `${sn}\n${quality}`;
    let stream = this.#byKey.get(key);
    if (!stream) {
      const flowId = `lv${(this.#nextFlow++).toString(36)}`;
      const started = this.#deps.command(sn, Command.StartStream, { quality }, { flowId, timeoutMs: 10_000 });
      const created: LiveStream = { sn, quality, flowId, viewers: new Map(), started, reply: undefined };
      stream = created;
      this.#byKey.set(key, created);
      this.#byFlow.set(flowId, created);
      started.then((reply) => {
        if (reply.result === Result.Success) created.reply = reply.data as StartStreamReply;
        else this.#forget(created);
      }, () => this.#forget(created));
    }
    // Joining before the reply means no early frame is lost for this viewer.
    if (!stream.viewers.has(console)) stream.viewers.set(console, new Viewer(console.sink, this.#deps.lagBytes));
    const reply = await stream.started;
    if (reply.result !== Result.Success) stream.viewers.delete(console);
    return reply;
  }

  #leave(stream: LiveStream, console: StreamConsole): void {
    stream.viewers.delete(console);
    if (stream.viewers.size > 0) return;
    this.#forget(stream);
    void this.#deps.command(stream.sn, Command.StopStream, { flowId: stream.flowId }, { flowId: stream.flowId, timeoutMs: 10_000 });
  }

  #forget(stream: LiveStream): void {
    if (this.#byFlow.get(stream.flowId) !== stream) return;
    this.#byFlow.delete(stream.flowId);
    this.#byKey.delete(`${stream.sn}\n${stream.quality}`);
  }

  /** A console socket closed: it leaves every stream it watched. */
  consoleGone(console: StreamConsole): void {
    for (const stream of [...this.#byFlow.values()]) if (stream.viewers.has(console)) this.#leave(stream, console);
  }

  /** A device went offline: its streams end, and their viewers are told. */
  deviceGone(sn: string): void {
    for (const stream of [...this.#byFlow.values()]) {
      if (stream.sn !== sn) continue;
      this.#forget(stream);
      for (const viewer of stream.viewers.values()) viewer.sink.sendMessage({ msgId: Command.StopStream, sn, flowId: stream.flowId, data: { flowId: stream.flowId, reason: 'offline' } });
    }
  }

  /** A chunk frame from a device: fanned out when it belongs to a live stream. False when it does not. */
  fromDevice(sn: string, frame: Uint8Array): boolean {
    const flowId = peekChunkFlowId(frame);
    const stream = flowId === undefined ? undefined : this.#byFlow.get(flowId);
    // Only the device the stream belongs to may feed it.
    if (!stream || stream.sn !== sn) return false;
    const key = ((frame[2] as number) & ChunkFlag.KeyFrame) !== 0;
    for (const viewer of stream.viewers.values()) viewer.offer(frame, key);
    return true;
  }
}
