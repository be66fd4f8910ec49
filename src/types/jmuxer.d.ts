// jmuxer ships no types, and @types/jmuxer references all of Node's (for a createStream() the console never
// calls), which made Buffer, process and node:* compile in browser code. This declares the browser API only.
declare module 'jmuxer' {
  export interface JMuxerFeed {
    readonly audio?: Uint8Array;
    readonly video?: Uint8Array;
    /** Milliseconds this chunk lasts. */
    readonly duration?: number;
  }

  export interface JMuxerOptions {
    /** The video element (or its id) that Media Source Extensions play into. */
    readonly node: string | HTMLVideoElement;
    readonly mode?: 'both' | 'audio' | 'video';
    readonly flushingTime?: number;
    readonly maxDelay?: number;
    readonly clearBuffer?: boolean;
    readonly fps?: number;
    readonly readFpsFromTrack?: boolean;
    readonly debug?: boolean;
    readonly onReady?: () => void;
    readonly onError?: (data: unknown) => void;
    readonly onMissingVideoFrames?: (data: JMuxerFeed) => void;
    readonly onMissingAudioFrames?: (data: JMuxerFeed) => void;
  }

  export default class JMuxer {
    constructor(options: JMuxerOptions);
    feed(data: JMuxerFeed): void;
    reset(): void;
    destroy(): void;
  }
}
