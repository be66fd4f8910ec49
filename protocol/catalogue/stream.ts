/*
 * Live view payloads (devices-and-commerce section 2, "Live view"): 65565 StartStream, 65611 StopStream
 * and 65568 RemoteControl. Video travels as chunk frames (CHUNK-1) on the stream's flow: one H.264
 * access unit per chunk, Annex-B byte stream (start codes), baseline profile; the KeyFrame flag marks
 * an access unit that starts with an IDR picture and carries SPS and PPS, where a viewer may start. A
 * chunk's timestamp is the device's capture time in epoch ms, so a viewer can show end-to-end latency.
 * Voice travels on the same flow as chunks flagged Audio: one Opus packet per chunk, each independent
 * of the others (no key frames), numbered by a sequence of its own (LIVE-3 in PROTOCOL.md).
 */
import { isRecord } from './decode.ts';

/** Which encoder output of the device: the main (full) stream or the smaller sub stream. */
export type StreamQuality = 'main' | 'sub';
export const STREAM_QUALITIES: readonly StreamQuality[] = ['main', 'sub'];

/**
 * Which picture the device encodes: its screen, or its front or back camera. Requests without a camera
 * mean the screen, so requests written before cameras existed keep their meaning.
 */
export type StreamCamera = 'screen' | 'front' | 'back';
export const STREAM_CAMERAS: readonly StreamCamera[] = ['screen', 'front', 'back'];

/** 65565 StartStream request data (console -> gateway -> device). */
export interface StartStreamRequest {
  readonly quality: StreamQuality;
  readonly camera: StreamCamera;
  /**
   * Console -> gateway: whether this viewer wants the voice frames (off when absent). A console that
   * already watches the stream sends StartStream again with another value to turn voice on or off
   * without restarting the picture. The gateway does not pass it on: a device sends voice whenever it
   * has it, and the gateway forwards it only to viewers who asked.
   */
  readonly audio: boolean;
}

/** The voice a stream carries: Opus packets at 48 kHz (what WebCodecs' AudioDecoder takes). */
export interface StreamAudioInfo {
  readonly codec: 'opus';
  readonly sampleRate: 48000;
  readonly channels: 1 | 2;
}

/** Why a device refused a StartStream, in `data.reason` beside the message (the console words it in its own language). */
export const StreamRefusal = {
  /** A camera was asked of a device whose support flags say it has none. */
  noCamera: 'no_camera',
} as const;

/** The message of a device that has no camera (English, for logs and old consoles; the console shows `reason` in the user's language). */
export const NO_CAMERA_MESSAGE = 'This device has no camera';

/** StartStream reply data: what the console needs to set up its decoder. */
export interface StartStreamReply {
  /** The flow whose chunks carry the video. */
  readonly flowId: string;
  readonly quality: StreamQuality;
  /** The picture encoded; absent from devices that predate cameras (the screen). */
  readonly camera?: StreamCamera;
  readonly codec: 'h264';
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** The voice on this flow (chunks flagged Audio); absent when the device sends none. */
  readonly audio?: StreamAudioInfo;
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
  | { readonly action: 'key'; readonly key: ControlKey }
  /** Types `text` into whatever has the focus on the device (1 to MAX_CONTROL_TEXT characters). */
  | { readonly action: 'text'; readonly text: string }
  /**
   * Scrolls at (x, y) by wheel steps: dy > 0 moves the content as a mouse wheel turned down does, dx > 0 as
   * one turned right; each at most MAX_SCROLL_STEPS either way, not both 0.
   */
  | { readonly action: 'scroll'; readonly x: number; readonly y: number; readonly dx: number; readonly dy: number }
  /** Holds a touch at (x, y) for durationMs (LONG_PRESS_MIN_MS to MAX_SWIPE_MS). */
  | { readonly action: 'longPress'; readonly x: number; readonly y: number; readonly durationMs: number }
  /** With `text`: sets the device's clipboard to it; without: reads it (the reply's `text`). */
  | { readonly action: 'clipboard'; readonly text?: string };

/** A point on a device's screen in its own pixels. */
export interface ScreenPoint {
  readonly x: number;
  readonly y: number;
}

/** 65568 RemoteControl reply data: the action applied, and the clipboard's text for a clipboard read. */
export interface RemoteControlReply {
  readonly applied: RemoteControlRequest['action'];
  readonly text?: string;
  /**
   * Where a pointer action (tap, swipe's start, scroll, long press) landed, in the device's own screen
   * pixels: the request's fractions scaled to this device's screen (group control shows it per device).
   */
  readonly at?: ScreenPoint;
}

/** A picture fraction 0-1 as a pixel of a side `of` pixels long (the last pixel for 1). */
export function controlPixel(fraction: number, of: number): number {
  return Math.min(of - 1, Math.round(fraction * of));
}

/** Where a pointer action lands on a screen of `size` (swipes: their start), or undefined for keys, text and the clipboard. */
export function controlPoint(input: RemoteControlRequest, size: { readonly width: number; readonly height: number }): ScreenPoint | undefined {
  switch (input.action) {
    case 'tap':
    case 'scroll':
    case 'longPress':
      return { x: controlPixel(input.x, size.width), y: controlPixel(input.y, size.height) };
    case 'swipe':
      return { x: controlPixel(input.x1, size.width), y: controlPixel(input.y1, size.height) };
    default:
      return undefined;
  }
}

/** Longest swipe (and long press) a console may ask for. */
export const MAX_SWIPE_MS = 5_000;
/** Shortest long press: below it a touch is a tap. */
export const LONG_PRESS_MIN_MS = 300;
/** Most characters one text or clipboard request carries. */
export const MAX_CONTROL_TEXT = 1_000;
/** Most wheel steps one scroll request carries, either way. */
export const MAX_SCROLL_STEPS = 20;

const steps = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= MAX_SCROLL_STEPS;
const controlText = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_CONTROL_TEXT;

const fraction = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 1;

/** The remote-control request in `data`, or undefined when it is malformed (answer result 2). */
export function parseRemoteControl(data: unknown): RemoteControlRequest | undefined {
  if (!isRecord(data)) return undefined;
  const d = data;
  if (d.action === 'tap' && fraction(d.x) && fraction(d.y)) return { action: 'tap', x: d.x, y: d.y };
  if (d.action === 'swipe' && fraction(d.x1) && fraction(d.y1) && fraction(d.x2) && fraction(d.y2)) {
    const ms = d.durationMs;
    if (typeof ms === 'number' && Number.isInteger(ms) && ms >= 0 && ms <= MAX_SWIPE_MS) return { action: 'swipe', x1: d.x1, y1: d.y1, x2: d.x2, y2: d.y2, durationMs: ms };
    return undefined;
  }
  if (d.action === 'key' && (CONTROL_KEYS as readonly unknown[]).includes(d.key)) return { action: 'key', key: d.key as ControlKey };
  if (d.action === 'text' && controlText(d.text) && d.text.length > 0) return { action: 'text', text: d.text };
  if (d.action === 'scroll' && fraction(d.x) && fraction(d.y) && steps(d.dx) && steps(d.dy) && (d.dx !== 0 || d.dy !== 0)) return { action: 'scroll', x: d.x, y: d.y, dx: d.dx, dy: d.dy };
  if (d.action === 'longPress' && fraction(d.x) && fraction(d.y)) {
    const ms = d.durationMs;
    if (typeof ms === 'number' && Number.isInteger(ms) && ms >= LONG_PRESS_MIN_MS && ms <= MAX_SWIPE_MS) return { action: 'longPress', x: d.x, y: d.y, durationMs: ms };
    return undefined;
  }
  if (d.action === 'clipboard') {
    if (d.text === undefined) return { action: 'clipboard' };
    if (controlText(d.text)) return { action: 'clipboard', text: d.text };
  }
  return undefined;
}

/** The start-stream request in `data` (quality main, the screen and no voice where absent), or undefined when it is malformed. */
export function parseStartStream(data: unknown): StartStreamRequest | undefined {
  const d = (typeof data === 'object' && data !== null ? data : {}) as { quality?: unknown; camera?: unknown; audio?: unknown };
  const quality = d.quality ?? 'main';
  const camera = d.camera ?? 'screen';
  const audio = d.audio ?? false;
  if (quality !== 'main' && quality !== 'sub') return undefined;
  if (!(STREAM_CAMERAS as readonly unknown[]).includes(camera) || typeof audio !== 'boolean') return undefined;
  return { quality, camera: camera as StreamCamera, audio };
}
