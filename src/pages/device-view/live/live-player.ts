import JMuxer from 'jmuxer';
import { filter, type Subscription } from 'rxjs';
import { ChunkFlag, Command, type Chunk, type Envelope } from '../../../../protocol/index.ts';

/** The MSE type of the streams the devices send (baseline profile, level 3.0). */
export const H264_MIME = 'video/mp4; codecs="avc1.42E01E"';

/** True when this browser can decode the live stream (Media Source Extensions with H.264). */
export function canDecodeH264(): boolean {
  return typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported(H264_MIME);
}

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

export interface LiveStats {
  /** Frames presented in the last second. */
  readonly fps: number;
  /** Device capture to presentation of the last frame, in ms (device and browser clocks assumed in step). */
  readonly latencyMs: number | undefined;
  /** Frames fed to the decoder since start. */
  readonly fed: number;
}

export interface LiveSource {
  readonly chunks$: import('rxjs').Observable<Chunk>;
  readonly batches$: import('rxjs').Observable<readonly Envelope[]>;
}

/**
 * Plays one flow of H.264 chunks in a video element through jmuxer: feeds from the first key frame after
 * the muxer is ready, keeps playback at the live edge, and measures presented frame rate and latency.
 */
export class LivePlayer {
  readonly #video: HTMLVideoElement;
  readonly #muxer: JMuxer;
  readonly #subs: Subscription[] = [];
  readonly #frameMs: number;
  readonly #captured = new Float64Array(TIMESTAMP_RING);
  #ready = false;
  #started = false;
  #fed = 0;
  #presented: number[] = [];
  #latency: number | undefined;
  #frameCallback = 0;
  #disposed = false;

  constructor(video: HTMLVideoElement, source: LiveSource, flowId: string, fps: number, onEnded: () => void) {
    this.#video = video;
    this.#frameMs = 1000 / fps;
    this.#muxer = new JMuxer({ node: video, mode: 'video', flushingTime: FLUSH_MS, fps, debug: false, onReady: () => (this.#ready = true) });
    this.#subs.push(
      source.chunks$.pipe(filter((c) => c.flowId === flowId)).subscribe((c) => this.#feed(c)),
      source.batches$.subscribe((batch) => {
        if (batch.some((env) => env.msgId === Command.StopStream && env.flowId === flowId)) onEnded();
      }),
    );
    this.#watchFrames();
  }

  #feed(chunk: Chunk): void {
    if (!this.#ready) return;
    // A decoder must start at a key frame; the gateway starts each viewer at one, but frames that
    // arrived before the muxer was ready were skipped.
    if (!this.#started && (chunk.flags & ChunkFlag.KeyFrame) === 0) return;
    this.#started = true;
    this.#captured[this.#fed % TIMESTAMP_RING] = chunk.timestamp;
    this.#fed++;
    this.#muxer.feed({ video: chunk.payload, duration: this.#frameMs });
    const buffered = this.#video.buffered;
    if (buffered.length > 0) {
      const end = buffered.end(buffered.length - 1);
      const behind = end - this.#video.currentTime;
      if (behind > JUMP_BEHIND_S) this.#video.currentTime = Math.max(0, end - 0.05);
      this.#video.playbackRate = behind > CATCH_UP_BEHIND_S ? CATCH_UP_RATE : 1;
    }
    if (this.#video.paused) void this.#video.play().catch(() => undefined);
  }

  #watchFrames(): void {
    if (this.#disposed || typeof this.#video.requestVideoFrameCallback !== 'function') return;
    this.#frameCallback = this.#video.requestVideoFrameCallback((now, meta) => {
      this.#presented.push(now);
      while (this.#presented.length > 0 && (this.#presented[0] as number) < now - 1000) this.#presented.shift();
      // jmuxer lays frames out back to back from media time 0, so media time gives the frame's index.
      const index = Math.round((meta.mediaTime * 1000) / this.#frameMs);
      if (index >= 0 && index < this.#fed && this.#fed - index <= TIMESTAMP_RING) {
        const captured = this.#captured[index % TIMESTAMP_RING] as number;
        this.#latency = Math.max(0, performance.timeOrigin + now - captured);
      }
      this.#watchFrames();
    });
  }

  get stats(): LiveStats {
    const now = performance.now();
    return { fps: this.#presented.filter((t) => t >= now - 1000).length, latencyMs: this.#latency, fed: this.#fed };
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#frameCallback) this.#video.cancelVideoFrameCallback(this.#frameCallback);
    for (const sub of this.#subs) sub.unsubscribe();
    this.#muxer.destroy();
  }
}
