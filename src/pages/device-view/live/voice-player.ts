import { filter, type Observable, type Subscription } from 'rxjs';
import { type Chunk, ChunkFlag, type StreamAudioInfo } from '../../../../protocol/index.ts';
import { VoiceSchedule } from './voice-schedule.ts';

/** True when this browser can decode the stream's voice (WebCodecs AudioDecoder; Chromium decodes Opus). */
export function canDecodeOpus(): boolean {
  return typeof AudioDecoder !== 'undefined';
}

/** Decoded voice frames waiting in the decoder past which packets are dropped: voice stays live, as the picture does. */
const MAX_DECODE_QUEUE = 10;

export interface VoiceStats {
  /** Opus packets decoded since voice was turned on. */
  readonly decoded: number;
  /** Packets dropped because the decoder had fallen behind. */
  readonly dropped: number;
}

/**
 * Plays the voice of one flow: chunks flagged Audio (one Opus packet each, LIVE-3) go to a WebCodecs
 * `AudioDecoder`, and each decoded piece is scheduled on an `AudioContext` right after the previous one
 * ({@link VoiceSchedule}). The context is the caller's: it must be created or resumed in a user
 * gesture (the voice switch), or the browser keeps it silent.
 */
export class VoicePlayer {
  readonly #context: AudioContext;
  readonly #decoder: AudioDecoder;
  readonly #schedule = new VoiceSchedule();
  readonly #sub: Subscription;
  #decoded = 0;
  #dropped = 0;

  constructor(context: AudioContext, chunks$: Observable<Chunk>, flowId: string, info: StreamAudioInfo) {
    this.#context = context;
    this.#decoder = new AudioDecoder({
      output: (data) => this.#play(data),
      // A decoder that failed is closed; the picture carries on without voice.
      error: () => this.#sub.unsubscribe(),
    });
    this.#decoder.configure({ codec: 'opus', sampleRate: info.sampleRate, numberOfChannels: info.channels });
    this.#sub = chunks$.pipe(filter((c) => c.flowId === flowId && (c.flags & ChunkFlag.Audio) !== 0)).subscribe((c) => this.#decode(c));
  }

  #decode(chunk: Chunk): void {
    if (this.#decoder.state !== 'configured') return;
    if (this.#decoder.decodeQueueSize >= MAX_DECODE_QUEUE) {
      this.#dropped++;
      return;
    }
    // Every Opus packet stands alone, so each is a key chunk.
    this.#decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: Math.round(chunk.timestamp * 1000), data: chunk.payload }));
  }

  #play(data: AudioData): void {
    this.#decoded++;
    try {
      const context = this.#context;
      const buffer = context.createBuffer(data.numberOfChannels, data.numberOfFrames, data.sampleRate);
      for (let ch = 0; ch < data.numberOfChannels; ch++) {
        const samples = new Float32Array(data.numberOfFrames);
        data.copyTo(samples, { planeIndex: ch, format: 'f32-planar' });
        buffer.copyToChannel(samples, ch);
      }
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      source.start(this.#schedule.place(context.currentTime, buffer.duration));
    } finally {
      data.close();
    }
  }

  get stats(): VoiceStats {
    return { decoded: this.#decoded, dropped: this.#dropped };
  }

  dispose(): void {
    this.#sub.unsubscribe();
    if (this.#decoder.state !== 'closed') this.#decoder.close();
  }
}
