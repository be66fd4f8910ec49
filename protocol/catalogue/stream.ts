/*
 * Live view payloads (devices-and-commerce section 2, "Live view"): 65565 StartStream, 65611 StopStream
 * and 65568 RemoteControl. Video travels as chunk frames (CHUNK-1) on the stream's flow: one H.264
 * access unit per chunk, Annex-B byte stream (start codes), baseline profile; the KeyFrame flag marks
 * an access unit that starts with an IDR picture and carries SPS and PPS, where a viewer may start. A
 * chunk's timestamp is the device's capture time in epoch ms, so a viewer can show end-to-end latency.
 */

/** Which encoder output of the device: the main (full) stream or the smaller sub stream. */
export type StreamQuality = 'main' | 'sub';
export const STREAM_QUALITIES: readonly StreamQuality[] = ['main', 'sub'];

/** 65565 StartStream request data (console -> gateway -> device). */
export interface StartStreamRequest {
  readonly quality: StreamQuality;
}

/** StartStream reply data: what the console needs to set up its decoder. */
export interface StartStreamReply {
  /** The flow whose chunks carry the video. */
  readonly flowId: string;
  readonly quality: StreamQuality;
  readonly codec: 'h264';
  readonly width: number;
  readonly height: number;
  readonly fps: number;
}

/** 65611 StopStream request data: the flow to leave (console) or end (gateway -> device). */
export interface StopStreamRequest {
  readonly flowId: string;
}

/** Keys a live-control session may press (Android navigation keys and power). */
export const CONTROL_KEYS = ['back', 'home', 'recents', 'power', 'volume_up', 'volume_down'] as const;
export type ControlKey = (typeof CONTROL_KEYS)[number];

/**
 * 65568 RemoteControl request data. Coordinates are fractions 0-1 of the picture as the device encodes
 * it (before any rotation the console applies), so they do not depend on the viewer's scale.
 */
export type RemoteControlRequest =
  | { readonly action: 'tap'; readonly x: number; readonly y: number }
  | { readonly action: 'swipe'; readonly x1: number; readonly y1: number; readonly x2: number; readonly y2: number; readonly durationMs: number }
  | { readonly action: 'key'; readonly key: ControlKey };

/** Longest swipe a console may ask for. */
export const MAX_SWIPE_MS = 5_000;

const fraction = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 1;

/** The remote-control request in `data`, or undefined when it is malformed (answer result 2). */
export function parseRemoteControl(data: unknown): RemoteControlRequest | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  if (d.action === 'tap' && fraction(d.x) && fraction(d.y)) return { action: 'tap', x: d.x, y: d.y };
  if (d.action === 'swipe' && fraction(d.x1) && fraction(d.y1) && fraction(d.x2) && fraction(d.y2)) {
    const ms = d.durationMs;
    if (typeof ms === 'number' && Number.isInteger(ms) && ms >= 0 && ms <= MAX_SWIPE_MS) return { action: 'swipe', x1: d.x1, y1: d.y1, x2: d.x2, y2: d.y2, durationMs: ms };
    return undefined;
  }
  if (d.action === 'key' && (CONTROL_KEYS as readonly unknown[]).includes(d.key)) return { action: 'key', key: d.key as ControlKey };
  return undefined;
}

/** The start-stream request in `data`, or undefined when it is malformed. */
export function parseStartStream(data: unknown): StartStreamRequest | undefined {
  const quality = (data as { quality?: unknown } | null | undefined)?.quality ?? 'main';
  return quality === 'main' || quality === 'sub' ? { quality } : undefined;
}
