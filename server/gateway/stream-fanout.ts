import {
  ChunkFlag,
  Command,
  decodeReply,
  decodeRequest,
  type Envelope,
  parseStartStream,
  peekChunkFlowId,
  Result,
  type ResultCode,
  type StartStreamReply,
  type StreamCamera,
  type StreamQuality,
} from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { type StreamControl, type StreamToNode, Subject } from '../bus/subjects.ts';
import { Message } from '../http/envelope.ts';
import type { LiveRecording, LiveRecordingStart } from '../recordings/recorder.ts';
import type { ConsoleLink } from './console-link.ts';
import { randomId } from './random-ids.ts';

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
 * P-frame without its predecessors would only show corruption). Voice frames go only to a viewer that
 * asked for them, under a rule of their own (see {@link Viewer.offerAudio}).
 */
export class Viewer {
  readonly sink: FrameSink;
  readonly #lagBytes: number;
  #waitingForKey = true;
  sent = 0;
  dropped = 0;
  /** Whether this viewer wants the stream's voice (its latest StartStream said so). */
  audio = false;
  audioSent = 0;
  audioDropped = 0;
  /** The recording of this console's watching, when its organisation records live view: it gets every frame of the stream. */
  recording: LiveRecording | undefined;

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

  /**
   * Offers one voice frame; returns whether it was sent. Every Opus packet decodes on its own, so voice
   * never waits for a video key frame (a viewer skipping to the next picture still hears), and a viewer
   * whose socket is backed up loses just that packet (a 20 ms gap) rather than falling behind.
   */
  offerAudio(frame: Uint8Array): boolean {
    if (!this.audio || !this.sink.open) return false;
    if (this.sink.bufferedAmount > this.#lagBytes) {
      this.audioDropped++;
      return false;
    }
    this.sink.sendFrame(frame);
    this.audioSent++;
    return true;
  }
}

/** True when a chunk frame carries voice rather than video (its Audio flag). */
export function isAudioFrame(frame: Uint8Array): boolean {
  return ((frame[2] as number) & ChunkFlag.Audio) !== 0;
}

/** True when a chunk frame is a video key frame. */
function isKeyFrame(frame: Uint8Array): boolean {
  return ((frame[2] as number) & ChunkFlag.KeyFrame) !== 0;
}

/**
 * Copies one frame of a stream to its viewers: voice under the voice rule, video under the key-frame
 * rule. The frame's own flags decide, so a relayed frame needs nothing beside it.
 */
function offerToAll(viewers: Iterable<Viewer>, frame: Uint8Array): void {
  const audio = isAudioFrame(frame);
  const key = !audio && isKeyFrame(frame);
  for (const viewer of viewers) {
    viewer.recording?.frame(frame);
    if (audio) viewer.offerAudio(frame);
    else viewer.offer(frame, key);
  }
}

/** The console behind a viewer, as the fan-out needs it. */
export interface StreamConsole {
  /** The account watching (recorded with the session). */
  readonly account?: string;
  readonly permissions: ReadonlySet<string>;
  readonly scope: ReadonlySet<number>;
  readonly sink: FrameSink;
}

/** How long a node waits for the node holding a device to start its stream before answering result 5. */
const REMOTE_START_MS = 10_000;
/**
 * A mirror repeats its watch this often; the holding node stops sending to a node it has not heard from
 * for STREAM_WATCH_EXPIRY_MS, so a node that died does not keep a device streaming for nobody.
 */
export const STREAM_WATCH_EVERY_MS = 10_000;
export const STREAM_WATCH_EXPIRY_MS = 3 * STREAM_WATCH_EVERY_MS;

/** What the fan-out needs of the cluster: the bus and this node's id. */
export interface StreamCluster {
  readonly bus: Bus;
  readonly nodeId: string;
  /** Wall clock for watch expiry (Date.now by default). */
  readonly now?: () => number;
}

export interface StreamFanoutDeps {
  /** Sends a command to the device (the gateway's command routing). */
  readonly command: (sn: string, msgId: number, data: unknown, opts: { flowId: string; timeoutMs?: number }) => Promise<Envelope>;
  /** The organisation of a device connected to this node; undefined when it is not connected here. */
  readonly orgOf: (sn: string) => number | undefined;
  /** A device's organisation and state from the database (for a device not connected here); undefined when unknown. */
  readonly findDevice: (sn: string) => Promise<{ readonly orgId: number; readonly online: boolean } | undefined>;
  readonly lagBytes?: number;
  /** Records a console's watching per its organisation's policy (issue 22); none: live view is not recorded. */
  readonly recorder?: () => LiveRecorder | undefined;
  /** Hears each console's start of watching with its outcome and recording (the device's timeline). */
  readonly watched?: (e: WatchEvent) => void;
  /** Wall clock for the timeline's times (Date.now by default). */
  readonly now?: () => number;
}

/** A console started (or failed to start) watching a device's stream. */
export interface WatchEvent {
  readonly orgId: number;
  readonly sn: string;
  readonly account: string;
  readonly data: unknown;
  readonly result: ResultCode;
  readonly reply: unknown;
  readonly at: number;
  readonly durationMs: number;
  readonly recordingId: string | null;
}

/** What the fan-out needs of the recordings. */
export interface LiveRecorder {
  beginLive(o: { orgId: number; sn: string; account: string; stream: StartStreamReply }): Promise<LiveRecordingStart>;
}

interface LiveStream {
  readonly sn: string;
  readonly quality: StreamQuality;
  readonly camera: StreamCamera;
  /** The device's flow; for a mirror, known once the holding node has answered. */
  flowId: string;
  readonly viewers: Map<StreamConsole, Viewer>;
  /** Settles with the device's StartStream reply. */
  readonly started: Promise<Envelope>;
  reply: StartStreamReply | undefined;
  /** Nodes whose consoles watch this stream (held here), with when each last said so: each frame is published once per node. */
  readonly remotes: Map<string, number>;
  /** True for a mirror of a stream held by another node: its frames arrive over the bus. */
  readonly mirror: boolean;
}

export type Answer = (result: ResultCode, data?: unknown) => void;

/**
 * Live view fan-out: the device encodes one stream per quality and camera (streamKey), however many
 * consoles watch it, and
 * the gateway copies each frame to every viewer under the drop policy of {@link Viewer}. The stream is
 * started on the first viewer and stopped when the last one leaves. In a cluster a console on another
 * node watches too: its node mirrors the stream, the node holding the device publishes each frame once
 * per watching node over the bus, and the mirror copies it to that node's viewers under the same policy
 * (the device still encodes once). LIVE-2 in protocol/PROTOCOL.md.
 */
export class StreamFanout {
  readonly #deps: StreamFanoutDeps;
  readonly #byKey = new Map<string, LiveStream>();
  readonly #byFlow = new Map<string, LiveStream>();
  #cluster: StreamCluster | undefined;
  /** Mirrors waiting for the holding node's answer, by stream key. */
  readonly #pendingStarts = new Map<string, (reply: Envelope) => void>();

  constructor(deps: StreamFanoutDeps) {
    this.#deps = deps;
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
        get account() {
          return link.caller.account;
        },
        // Read at each use: a console's rights follow changes to its role and organisation (console-rights.ts).
        get permissions() {
          return link.caller.permissions;
        },
        get scope() {
          return link.caller.scope;
        },
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
      const flowId = decodeRequest(Command.StopStream, env.data)?.data.flowId ?? env.flowId;
      const stream = typeof flowId === 'string' ? this.#byFlow.get(flowId) : undefined;
      if (stream && stream.sn === sn) this.#leave(stream, console);
      return answer(Result.Success);
    }
    const ask = parseStartStream(env.data);
    if (!ask) return answer(Result.MessageError, { message: 'quality must be main or sub, camera screen, front or back, audio a boolean' });
    const { quality, camera, audio } = ask;
    const orgId = this.#deps.orgOf(sn);
    if (!console.permissions.has('device_live_view')) return answer(Result.Fail, { message: Message.PermissionDenied });
    const settle = (watching: Promise<Envelope>) =>
      watching.then(
        (reply) => answer(reply.result ?? Result.Fail, reply.data),
        () => answer(Result.Fail),
      );
    if (orgId === undefined) {
      // Not connected here: offline, or held by another node of the cluster, which mirrors it here. As for
      // every console command (CMD-1), a device outside the caller's scope gets the same refusal as an
      // unknown serial, online or not: no answer may tell that another organisation's device exists.
      this.#deps.findDevice(sn).then((row) => {
        if (!row || !console.scope.has(row.orgId)) return answer(Result.Fail, { message: Message.PermissionDenied });
        // The device may have connected here meanwhile: then it is an ordinary stream.
        const here = this.#deps.orgOf(sn);
        if (here !== undefined) {
          if (!console.scope.has(here)) return answer(Result.Fail, { message: Message.PermissionDenied });
          return void settle(this.#joinNoted(console, this.#stream(sn, quality, camera), audio, here, env.data));
        }
        const cluster = this.#cluster;
        if (!row.online || !cluster) return answer(Result.DeviceOffline);
        void settle(this.#joinNoted(console, this.#mirror(cluster, sn, quality, camera), audio, row.orgId, env.data));
      }, () => answer(Result.Fail));
      return;
    }
    if (!console.scope.has(orgId)) return answer(Result.Fail, { message: Message.PermissionDenied });
    void settle(this.#joinNoted(console, this.#stream(sn, quality, camera), audio, orgId, env.data));
  }

  /** The stream of a device held here, started on the device when new. */
  #stream(sn: string, quality: StreamQuality, camera: StreamCamera): LiveStream {
    const key = streamKey(sn, quality, camera);
    const existing = this.#byKey.get(key);
    if (existing && !existing.mirror) return existing;
    // Random, like the gateway's correlation ids: a flow id says nothing of other devices' streams.
    const flowId = `lv${randomId()}`;
    // The screen is asked as before (no camera field), so a device that predates cameras still streams it.
    const started = this.#deps.command(sn, Command.StartStream, camera === 'screen' ? { quality } : { quality, camera }, { flowId, timeoutMs: 10_000 });
    const created: LiveStream = { sn, quality, camera, flowId, viewers: new Map(existing?.viewers), started, reply: undefined, remotes: new Map(), mirror: false };
    this.#byKey.set(key, created);
    this.#byFlow.set(flowId, created);
    started.then(
      (reply) => {
        const data = reply.result === Result.Success ? decodeReply(Command.StartStream, reply.data)?.data : undefined;
        if (data) created.reply = data;
        else this.#forget(created);
      },
      () => this.#forget(created),
    );
    return created;
  }

  /** A mirror of a stream held by another node: asks the cluster for it; the holder answers and then publishes its frames to this node. */
  #mirror(cluster: StreamCluster, sn: string, quality: StreamQuality, camera: StreamCamera): LiveStream {
    const key = streamKey(sn, quality, camera);
    const existing = this.#byKey.get(key);
    if (existing) return existing;
    const started = new Promise<Envelope>((resolve) => {
      const timer = setTimeout(() => {
        this.#pendingStarts.delete(key);
        resolve({ msgId: Command.StartStream, sn, result: Result.DeviceOffline });
      }, REMOTE_START_MS);
      timer.unref?.();
      this.#pendingStarts.set(key, (reply) => {
        clearTimeout(timer);
        this.#pendingStarts.delete(key);
        resolve(reply);
      });
    });
    const created: LiveStream = { sn, quality, camera, flowId: '', viewers: new Map(), started, reply: undefined, remotes: new Map(), mirror: true };
    this.#byKey.set(key, created);
    void started.then((reply) => {
      const data = reply.result === Result.Success ? decodeReply(Command.StartStream, reply.data)?.data : undefined;
      if (data === undefined || this.#byKey.get(key) !== created) return this.#forget(created);
      created.reply = data;
      created.flowId = data.flowId;
      this.#byFlow.set(data.flowId, created);
    });
    cluster.bus.publish(Subject.streamControl, { op: 'watch', sn, quality, camera, node: cluster.nodeId });
    return created;
  }

  /** Joins, then tells the `watched` hook the outcome and the recording it started. */
  async #joinNoted(console: StreamConsole, stream: LiveStream, audio: boolean, orgId: number, data: unknown): Promise<Envelope> {
    const now = this.#deps.now ?? Date.now;
    const at = now();
    const reply = await this.#join(console, stream, audio, orgId);
    const recordingId = stream.viewers.get(console)?.recording?.id ?? null;
    this.#deps.watched?.({ orgId, sn: stream.sn, account: console.account ?? '', data, result: reply.result ?? Result.Fail, reply: reply.data, at, durationMs: now() - at, recordingId });
    return reply;
  }

  async #join(console: StreamConsole, stream: LiveStream, audio: boolean, orgId: number): Promise<Envelope> {
    // Joining before the reply means no early frame is lost for this viewer. A console already watching
    // keeps its viewer (and its place in the picture): only its voice choice changes.
    let viewer = stream.viewers.get(console);
    if (!viewer) {
      viewer = new Viewer(console.sink, this.#deps.lagBytes);
      stream.viewers.set(console, viewer);
    }
    viewer.audio = audio;
    const reply = await stream.started;
    if (reply.result !== Result.Success) {
      stream.viewers.delete(console);
      return reply;
    }
    const recorder = this.#deps.recorder?.();
    if (!recorder || viewer.recording || !stream.reply) return reply;
    const started = await recorder.beginLive({ orgId, sn: stream.sn, account: console.account ?? '', stream: stream.reply }).catch((): LiveRecordingStart => ({ recording: null }));
    if ('refused' in started) {
      // Required and it could not start: no recording, no live view.
      if (stream.viewers.get(console) === viewer) this.#leave(stream, console);
      return { msgId: Command.StartStream, sn: stream.sn, result: Result.Fail, data: { message: Message.PermissionDenied } };
    }
    // The console may have stopped watching (or the stream ended) meanwhile: then the recording ends at once.
    if (started.recording && (viewer.recording || stream.viewers.get(console) !== viewer || !this.#live(stream))) void started.recording.end();
    else if (started.recording) viewer.recording = started.recording;
    return reply;
  }

  /** True while the stream is still the one its key leads to (not ended, not replaced). */
  #live(stream: LiveStream): boolean {
    return this.#byKey.get(streamKey(stream.sn, stream.quality, stream.camera)) === stream;
  }

  #leave(stream: LiveStream, console: StreamConsole): void {
    void stream.viewers.get(console)?.recording?.end();
    stream.viewers.delete(console);
    this.#stopIfUnwatched(stream);
  }

  /** Stops the device's stream (or leaves the holder's, for a mirror) once no console anywhere watches it. */
  #stopIfUnwatched(stream: LiveStream): void {
    if (stream.viewers.size > 0 || stream.remotes.size > 0) return;
    this.#forget(stream);
    if (stream.mirror) {
      this.#cluster?.bus.publish(Subject.streamControl, { op: 'leave', sn: stream.sn, quality: stream.quality, camera: stream.camera, node: this.#cluster.nodeId });
      return;
    }
    void this.#deps.command(stream.sn, Command.StopStream, { flowId: stream.flowId }, { flowId: stream.flowId, timeoutMs: 10_000 });
  }

  #forget(stream: LiveStream): void {
    const key = streamKey(stream.sn, stream.quality, stream.camera);
    if (this.#byKey.get(key) === stream) this.#byKey.delete(key);
    if (this.#byFlow.get(stream.flowId) === stream) this.#byFlow.delete(stream.flowId);
  }

  /**
   * Joins the cluster's live view: answers other nodes' watch and leave requests for devices held here,
   * and feeds this node's mirrors from the frames other nodes publish. Returns the function that leaves.
   */
  joinCluster(cluster: StreamCluster): () => void {
    if (!cluster.bus.shared) return () => undefined;
    this.#cluster = cluster;
    const subs = [
      cluster.bus.subscribe(Subject.streamControl, (m) => this.#fromControl(cluster, m)),
      cluster.bus.subscribe(Subject.streamToNode(cluster.nodeId), (m) => this.#fromHolder(m)),
    ];
    // Mirrors with viewers say so again, so the holding node keeps sending (and stops when this node is gone).
    const keepalive = setInterval(() => {
      for (const stream of this.#byKey.values()) {
        if (stream.mirror && stream.viewers.size > 0) cluster.bus.publish(Subject.streamControl, { op: 'watch', sn: stream.sn, quality: stream.quality, camera: stream.camera, node: cluster.nodeId });
      }
    }, STREAM_WATCH_EVERY_MS);
    keepalive.unref?.();
    return () => {
      clearInterval(keepalive);
      subs.forEach((unsubscribe) => unsubscribe());
      this.#cluster = undefined;
    };
  }

  /** Another node's watch or leave for a device held here (the message is ignored by every other node). */
  #fromControl(cluster: StreamCluster, m: StreamControl): void {
    const { sn, quality, camera, node } = m;
    if (node === cluster.nodeId || this.#deps.orgOf(sn) === undefined) return;
    if (m.op === 'leave') {
      const stream = this.#byKey.get(streamKey(sn, quality, camera));
      if (!stream || stream.mirror) return;
      stream.remotes.delete(node);
      this.#stopIfUnwatched(stream);
      return;
    }
    const stream = this.#stream(sn, quality, camera);
    const known = stream.remotes.has(node);
    stream.remotes.set(node, (cluster.now ?? Date.now)());
    // A repeated watch (the mirror's keepalive) only refreshes the node's time.
    if (known) return;
    void stream.started.then(
      (reply) => {
        if (reply.result !== Result.Success) stream.remotes.delete(node);
        cluster.bus.publish(Subject.streamToNode(node), { op: 'started', sn, quality, camera, result: reply.result ?? Result.Fail, data: reply.data });
      },
      () => cluster.bus.publish(Subject.streamToNode(node), { op: 'started', sn, quality, camera, result: Result.Fail }),
    );
  }

  /** The holding node's answer, frames and end of a stream this node mirrors. */
  #fromHolder(m: StreamToNode): void {
    const { sn } = m;
    const key = streamKey(sn, m.quality, m.camera);
    if (m.op === 'started') {
      this.#pendingStarts.get(key)?.({ msgId: Command.StartStream, sn, result: m.result, data: m.data });
      return;
    }
    const stream = this.#byKey.get(key);
    if (!stream?.mirror) return;
    if (m.op === 'frame') {
      offerToAll(stream.viewers.values(), m.frame);
    } else {
      this.#forget(stream);
      this.#tellGone(stream);
    }
  }

  #tellGone(stream: LiveStream): void {
    const { sn, flowId } = stream;
    for (const viewer of stream.viewers.values()) {
      void viewer.recording?.end();
      viewer.sink.sendMessage({ msgId: Command.StopStream, sn, flowId, data: { flowId, reason: 'offline' } });
    }
  }

  /** A console socket closed: it leaves every stream it watched. */
  consoleGone(console: StreamConsole): void {
    for (const stream of [...this.#byFlow.values()]) if (stream.viewers.has(console)) this.#leave(stream, console);
  }

  /** A device went offline: its streams end, and their viewers (here and on watching nodes) are told. */
  deviceGone(sn: string): void {
    for (const stream of [...this.#byFlow.values()]) {
      if (stream.sn !== sn || stream.mirror) continue;
      this.#forget(stream);
      this.#tellGone(stream);
      for (const node of stream.remotes.keys()) this.#cluster?.bus.publish(Subject.streamToNode(node), { op: 'gone', sn, quality: stream.quality, camera: stream.camera });
    }
  }

  /** A chunk frame from a device: fanned out when it belongs to a live stream. False when it does not. */
  fromDevice(sn: string, frame: Uint8Array): boolean {
    const flowId = peekChunkFlowId(frame);
    const stream = flowId === undefined ? undefined : this.#byFlow.get(flowId);
    // Only the device the stream belongs to may feed it.
    if (!stream || stream.sn !== sn || stream.mirror) return false;
    offerToAll(stream.viewers.values(), frame);
    if (stream.remotes.size > 0 && this.#cluster) this.#toRemotes(this.#cluster, stream, frame);
    return true;
  }

  /** Once per watching node, however many consoles watch there; the frame is relayed unchanged. */
  #toRemotes(cluster: StreamCluster, stream: LiveStream, frame: Uint8Array): void {
    // `key` is kept on the wire for nodes running the previous release; receivers read the frame's flags.
    const key = isKeyFrame(frame);
    const now = (cluster.now ?? Date.now)();
    for (const [node, seen] of stream.remotes) {
      if (now - seen > STREAM_WATCH_EXPIRY_MS) stream.remotes.delete(node);
      else cluster.bus.publish(Subject.streamToNode(node), { op: 'frame', sn: stream.sn, quality: stream.quality, camera: stream.camera, frame, key });
    }
    this.#stopIfUnwatched(stream);
  }
}

/**
 * The key of a device stream: what the device encodes. Viewers of the same device, quality and camera
 * share one encode; another camera is another stream, so one console switching cameras never changes
 * the picture of another console watching the same device.
 */
export function streamKey(sn: string, quality: StreamQuality, camera: StreamCamera = 'screen'): string {
  return `${sn}\n${quality}\n${camera}`;
}
