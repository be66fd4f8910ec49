import JMuxer from 'jmuxer';
import { filter, type Observable, type Subscription } from 'rxjs';
import { ChunkFlag, Command, type Chunk, type Envelope } from '../../../../protocol/index.ts';
import { FrameMeter } from './frame-meter.ts';
import { type DecoderSetup, sameSetup, toDecodableUnits } from './h264.ts';

/** The MSE type of the streams the devices send (baseline profile, level 3.0). */
export const H264_MIME = 'video/mp4; codecs="avc1.42E01E"';

/** True when Media Source Extensions can play H.264 here (the jmuxer fallback). */
export function canDecodeWithMse(): boolean {
  return typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(H264_MIME);
}

/**
 * True when this browser may decode the live stream: WebCodecs (confirmed per stream against its own
 * parameter sets once the first key frame arrives) or MSE.
 */
export function canDecodeH264(): boolean {
  return typeof VideoDecoder !== 'undefined' || canDecodeWithMse();
}

/** Which decoder shows the picture: WebCodecs onto a canvas, or jmuxer into a video element through MSE. */
export type LivePath = 'webcodecs' | 'mse';

/**
 * How long jmuxer collects frames before appending them to the media buffer. It must be above 0 (with 0
 * it waits for a continuous feed, measured in DESIGN.md); half a frame at 30 fps adds little latency.
 */
const FLUSH_MS = 16;
/** Past this much buffered ahead of the playhead, playback jumps to the live edge (a stall or a lag). */
const JUMP_BEHIND_S = 0.3;
/**
 * Past this much, playback runs slightly fast until it catches up: MSE players otherwise drift behind
 * the live edge as buffering adds up, and a seek on every small lag would stutter.
 */
const CATCH_UP_BEHIND_S = 0.05;
const CATCH_UP_RATE = 1.25;
/** Capture timestamps remembered to match presented frames back to when the device sent them. */
const TIMESTAMP_RING = 512;
/**
 * Frames waiting in the WebCodecs decoder past which delta frames are dropped until the next key frame:
 * a decoder that cannot keep up would otherwise fall further behind live with every frame, and the
 * picture should jump to now (as the gateway does for slow sockets) rather than play late.
 */
const MAX_DECODE_QUEUE = 4;
/** Chunks held while the path is being chosen (an async capability check); about 2 s at 30 fps. */
const MAX_PENDING = 60;

export interface LiveStats {
  /** Frames presented in the last second. */
  readonly fps: number;
  /** Device capture to presentation of the last frame, in ms (device and browser clocks assumed in step). */
  readonly latencyMs: number | undefined;
  /** Frames fed to the decoder since start. */
  readonly fed: number;
  /** Frames shown since start: decoded by VideoDecoder and painted (WebCodecs), or presented by the video element (MSE). */
  readonly shown: number;
  /** The decoder in use, once the first key frame has chosen it. */
  readonly path: LivePath | undefined;
}

export interface LiveSource {
  readonly chunks$: Observable<Chunk>;
  readonly batches$: Observable<readonly Envelope[]>;
}

/** Where the player draws: the canvas for WebCodecs, the video element for the jmuxer fallback. */
export interface LiveSurfaces {
  readonly canvas: HTMLCanvasElement;
  readonly video: HTMLVideoElement;
}

export interface LiveEvents {
  /** The device or gateway ended the stream. */
  readonly onEnded: () => void;
  /** The decoder was chosen (or changed to the fallback after a WebCodecs failure). */
  readonly onPath: (path: LivePath) => void;
  /** Nothing here can decode this stream. */
  readonly onUndecodable: () => void;
}

/**
 * Plays one flow of H.264 chunks. Where WebCodecs can decode the stream's own configuration, each
 * access unit goes to a `VideoDecoder` the moment it arrives and the frame is painted to a canvas as soon
 * as it is decoded (no media buffer in between); otherwise jmuxer feeds the video element through MSE,
 * kept at the live edge. Both paths measure frame rate and capture-to-shown latency.
 */
export class LivePlayer {
  readonly #surfaces: LiveSurfaces;
  readonly #events: LiveEvents;
  readonly #fps: number;
  readonly #frameMs: number;
  readonly #subs: Subscription[] = [];
  readonly #meter = new FrameMeter();
  #path: LivePath | undefined;
  #choosing = false;
  #pending: Chunk[] = [];
  #fed = 0;
  #disposed = false;
  // WebCodecs
  #decoder: VideoDecoder | undefined;
  #setup: DecoderSetup | undefined;
  #skipToKey = false;
  // MSE
  #muxer: JMuxer | undefined;
  #muxerReady = false;
  #mseStarted = false;
  readonly #captured = new Float64Array(TIMESTAMP_RING);
  #frameCallback = 0;

  constructor(surfaces: LiveSurfaces, source: LiveSource, flowId: string, fps: number, events: LiveEvents) {
    this.#surfaces = surfaces;
    this.#events = events;
    this.#fps = fps;
    this.#frameMs = 1000 / fps;
    this.#subs.push(
      // Voice shares the flow (chunks flagged Audio); the voice player takes those.
      source.chunks$.pipe(filter((c) => c.flowId === flowId && (c.flags & ChunkFlag.Audio) === 0)).subscribe((c) => this.#receive(c)),
      source.batches$.subscribe((batch) => {
        if (batch.some((env) => env.msgId === Command.StopStream && env.flowId === flowId)) events.onEnded();
      }),
    );
  }

  #receive(chunk: Chunk): void {
    if (this.#disposed) return;
    if (this.#path === 'webcodecs') return this.#decode(chunk);
    if (this.#path === 'mse') return this.#feedMse(chunk);
    // Nothing chosen yet: a decoder starts at a key frame, whose parameter sets also say what to configure.
    if (this.#pending.length === 0 && (chunk.flags & ChunkFlag.KeyFrame) === 0) return;
    if (this.#pending.length >= MAX_PENDING) this.#pending = [];
    else this.#pending.push(chunk);
    if (!this.#choosing && this.#pending.length > 0) void this.#choosePath(this.#pending[0] as Chunk);
  }

  async #choosePath(first: Chunk): Promise<void> {
    this.#choosing = true;
    const setup = toDecodableUnits(first.payload).find((u) => u.setup)?.setup;
    let supported = false;
    if (setup && typeof VideoDecoder !== 'undefined') {
      supported = await VideoDecoder.isConfigSupported(this.#config(setup)).then(
        (s) => s.supported === true,
        () => false,
      );
    }
    this.#choosing = false;
    if (this.#disposed) return;
    if (supported) this.#startWebCodecs();
    else if (canDecodeWithMse()) this.#startMse();
    else return this.#events.onUndecodable();
    const pending = this.#pending;
    this.#pending = [];
    for (const chunk of pending) this.#receive(chunk);
  }

  #config(setup: DecoderSetup): VideoDecoderConfig {
    return { codec: setup.codec, description: setup.description, codedWidth: setup.codedWidth, codedHeight: setup.codedHeight, optimizeForLatency: true };
  }

  #startWebCodecs(): void {
    this.#path = 'webcodecs';
    this.#events.onPath('webcodecs');
    const context = this.#surfaces.canvas.getContext('2d');
    this.#decoder = new VideoDecoder({
      output: (frame) => {
        const canvas = this.#surfaces.canvas;
        if (canvas.width !== frame.displayWidth || canvas.height !== frame.displayHeight) {
          canvas.width = frame.displayWidth;
          canvas.height = frame.displayHeight;
        }
        context?.drawImage(frame, 0, 0);
        // The chunk's timestamp is the device's capture time (ms, as µs), so latency needs no lookup.
        const captured = frame.timestamp / 1000;
        frame.close();
        const now = performance.now();
        this.#meter.shown(now, performance.timeOrigin + now - captured);
      },
      error: () => {
        // A decoder that failed is closed for good; the stream carries on through MSE where it can.
        this.#decoder = undefined;
        if (this.#disposed) return;
        if (canDecodeWithMse()) this.#startMse();
        else this.#events.onUndecodable();
      },
    });
  }

  #decode(chunk: Chunk): void {
    const decoder = this.#decoder;
    if (!decoder || decoder.state === 'closed') return;
    for (const unit of toDecodableUnits(chunk.payload)) {
      if (unit.key) {
        this.#skipToKey = false;
        if (unit.setup && (!this.#setup || !sameSetup(unit.setup, this.#setup))) {
          this.#setup = unit.setup;
          decoder.configure(this.#config(unit.setup));
        }
      } else if (this.#skipToKey || decoder.decodeQueueSize >= MAX_DECODE_QUEUE) {
        this.#skipToKey = true;
        continue;
      }
      if (!this.#setup) continue;
      this.#fed++;
      decoder.decode(new EncodedVideoChunk({ type: unit.key ? 'key' : 'delta', timestamp: Math.round(chunk.timestamp * 1000), duration: Math.round(this.#frameMs * 1000), data: unit.data }));
    }
  }

  #startMse(): void {
    this.#path = 'mse';
    // The frame index below counts from jmuxer's first frame (media time 0).
    this.#fed = 0;
    this.#events.onPath('mse');
    this.#muxer = new JMuxer({ node: this.#surfaces.video, mode: 'video', flushingTime: FLUSH_MS, fps: this.#fps, debug: false, onReady: () => (this.#muxerReady = true) });
    this.#watchFrames();
  }

  #feedMse(chunk: Chunk): void {
    // jmuxer must be fed only after it is ready; frames before that are skipped up to a key frame.
    if (!this.#muxerReady || !this.#muxer) return;
    if (!this.#mseStarted && (chunk.flags & ChunkFlag.KeyFrame) === 0) return;
    this.#mseStarted = true;
    this.#captured[this.#fed % TIMESTAMP_RING] = chunk.timestamp;
    this.#fed++;
    this.#muxer.feed({ video: chunk.payload, duration: this.#frameMs });
    const video = this.#surfaces.video;
    const buffered = video.buffered;
    if (buffered.length > 0) {
      const end = buffered.end(buffered.length - 1);
      const behind = end - video.currentTime;
      if (behind > JUMP_BEHIND_S) video.currentTime = Math.max(0, end - 0.05);
      video.playbackRate = behind > CATCH_UP_BEHIND_S ? CATCH_UP_RATE : 1;
    }
    if (video.paused) void video.play().catch(() => undefined);
  }

  #watchFrames(): void {
    const video = this.#surfaces.video;
    if (this.#disposed || typeof video.requestVideoFrameCallback !== 'function') return;
    this.#frameCallback = video.requestVideoFrameCallback((now, meta) => {
      // jmuxer lays frames out back to back from media time 0, so media time gives the frame's index.
      const index = Math.round((meta.mediaTime * 1000) / this.#frameMs);
      const known = index >= 0 && index < this.#fed && this.#fed - index <= TIMESTAMP_RING;
      this.#meter.shown(now, known ? performance.timeOrigin + now - (this.#captured[index % TIMESTAMP_RING] as number) : undefined);
      this.#watchFrames();
    });
  }

  get stats(): LiveStats {
    return { fps: this.#meter.fps(performance.now()), latencyMs: this.#meter.latencyMs, fed: this.#fed, shown: this.#meter.count, path: this.#path };
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#frameCallback) this.#surfaces.video.cancelVideoFrameCallback(this.#frameCallback);
    for (const sub of this.#subs) sub.unsubscribe();
    if (this.#decoder && this.#decoder.state !== 'closed') this.#decoder.close();
    this.#muxer?.destroy();
  }
}
