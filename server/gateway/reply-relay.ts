import { isUtf8 } from 'node:buffer';
import { MAX_FRAME_BYTES, MAX_NESTING, Result, type ResultCode } from '../../protocol/index.ts';

// A device's final reply to a console's command, read straight from its msgpack frame: the envelope's
// fields, and its data transcoded to JSON text for the console, without building the data as objects and
// serialising them again (decoding the reply and encoding it for the console were a quarter of the
// gateway's own work per command: DECISIONS, Performance). Only a plain subset is read here: maps with
// string keys, arrays, strings, booleans, nil, integers up to 32 bits and float64. Anything else (bin,
// extensions, 64-bit integers, float32, keys JSON.stringify would reorder or msgpackr renames, duplicate
// keys, invalid UTF-8, deep nesting, a frame that is not a well-formed reply) answers undefined and the
// frame takes the general path (decodeFrame), which decides and refuses exactly as before. So what the
// console receives is what JSON.stringify of the decoded reply would have given, byte for byte.

/** A final reply read from a device's msgpack frame, its data as JSON text. */
export interface RelayedReply {
  readonly msgId: number;
  readonly cid: string;
  readonly sn: string | undefined;
  readonly flowId: string | undefined;
  readonly result: ResultCode;
  /** Where the data's value starts in the frame (it is the map's last entry); -1: no data. */
  readonly dataAt: number;
}

/** The console's reply as JSON text (UTF-8), and the data's `message` when data is a map holding a string there (what the timeline keeps). */
export interface RelayedData {
  readonly json: Buffer;
  readonly message: string | undefined;
}

/** Entries of a map read here; bigger ones are decoded (duplicate keys are looked for by a linear scan). */
const MAX_MAP_ENTRIES = 64;

/** Envelope keys, as the general path's toEnvelope accepts them; each may appear once. */
const Key = { MsgId: 1, Cid: 2, FlowId: 4, Sn: 8, JsessionId: 16, Result: 32, Data: 64 } as const;
type Key = (typeof Key)[keyof typeof Key];

/** True when frame[pos, pos + text.length) is the ASCII `text` (compared in place: no string is built). */
function bytesAre(frame: Buffer, pos: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (frame[pos + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Which envelope key a fixstr key of `len` bytes at `pos` is; 0: none. */
function keyAt(frame: Buffer, pos: number, len: number): Key | 0 {
  switch (len) {
    case 2:
      return bytesAre(frame, pos, 'sn') ? Key.Sn : 0;
    case 3:
      return bytesAre(frame, pos, 'cid') ? Key.Cid : 0;
    case 4:
      return bytesAre(frame, pos, 'data') ? Key.Data : 0;
    case 5:
      return bytesAre(frame, pos, 'msgId') ? Key.MsgId : 0;
    case 6:
      return bytesAre(frame, pos, 'result') ? Key.Result : bytesAre(frame, pos, 'flowId') ? Key.FlowId : 0;
    case 10:
      return bytesAre(frame, pos, 'jsessionId') ? Key.JsessionId : 0;
    default:
      return 0;
  }
}

/** Header size and length of a string at `pos` (fixstr, str8, str16, str32); length -1: not a string. */
function strHeader(frame: Buffer, pos: number): { size: number; len: number } | undefined {
  const b = frame[pos];
  if (b === undefined) return undefined;
  if (b >= 0xa0 && b <= 0xbf) return { size: 1, len: b & 0x1f };
  if (b === 0xd9 && pos + 1 < frame.length) return { size: 2, len: frame[pos + 1] as number };
  if (b === 0xda && pos + 2 < frame.length) return { size: 3, len: frame.readUInt16BE(pos + 1) };
  if (b === 0xdb && pos + 4 < frame.length) return { size: 5, len: frame.readUInt32BE(pos + 1) };
  return undefined;
}

/** An unsigned integer (positive fixint, uint8/16/32) at `pos`: [value, size]; undefined otherwise. */
function uintAt(frame: Buffer, pos: number): [number, number] | undefined {
  const b = frame[pos];
  if (b === undefined) return undefined;
  if (b <= 0x7f) return [b, 1];
  if (b === 0xcc && pos + 1 < frame.length) return [frame[pos + 1] as number, 2];
  if (b === 0xcd && pos + 2 < frame.length) return [frame.readUInt16BE(pos + 1), 3];
  if (b === 0xce && pos + 4 < frame.length) return [frame.readUInt32BE(pos + 1), 5];
  return undefined;
}

/**
 * Reads a device's frame as a final reply (cid and a result other than 6), data last; undefined for
 * anything else, which the general decoder then reads.
 */
export function readReply(frame: Buffer): RelayedReply | undefined {
  if (frame.length > MAX_FRAME_BYTES) return undefined;
  const b0 = frame[0];
  if (b0 === undefined || b0 < 0x80 || b0 > 0x8f) return undefined; // a fixmap: an envelope has at most 7 keys
  const entries = b0 & 0x0f;
  let pos = 1;
  let seen = 0;
  let msgId = -1;
  let cid: string | undefined;
  let sn: string | undefined;
  let flowId: string | undefined;
  let result = -1;
  let dataAt = -1;
  for (let i = 0; i < entries; i++) {
    const kb = frame[pos];
    if (kb === undefined || kb < 0xa0 || kb > 0xbf) return undefined;
    const key = keyAt(frame, pos + 1, kb & 0x1f);
    if (key === 0 || seen & key) return undefined;
    seen |= key;
    pos += 1 + (kb & 0x1f);
    if (key === Key.Data) {
      // Data last, so its end is the frame's end (the transcoder checks it ends exactly there).
      if (i !== entries - 1) return undefined;
      dataAt = pos;
      break;
    }
    if (key === Key.MsgId || key === Key.Result) {
      const n = uintAt(frame, pos);
      if (!n) return undefined;
      if (key === Key.MsgId) msgId = n[0];
      else result = n[0];
      pos += n[1];
      continue;
    }
    const s = strHeader(frame, pos);
    if (!s) return undefined;
    const start = pos + s.size;
    const end = start + s.len;
    if (end > frame.length) return undefined;
    const value = asciiOrUtf8(frame, start, end);
    if (value === undefined) return undefined;
    if (key === Key.Cid) cid = value;
    else if (key === Key.Sn) sn = value;
    else if (key === Key.FlowId) flowId = value;
    pos = end;
  }
  if (dataAt < 0 && pos !== frame.length) return undefined;
  if (msgId < 0 || cid === undefined || result < 0 || result > 7 || result === Result.Pushing) return undefined;
  return { msgId, cid, sn, flowId, result: result as ResultCode, dataAt };
}

/** The string in frame[start, end), or undefined when it is not valid UTF-8. */
function asciiOrUtf8(frame: Buffer, start: number, end: number): string | undefined {
  for (let i = start; i < end; i++) {
    if ((frame[i] as number) >= 0x80) return isUtf8(frame.subarray(start, end)) ? frame.toString('utf8', start, end) : undefined;
  }
  return frame.toString('latin1', start, end);
}

/** Bytes that JSON must escape inside a string: controls, quote, backslash. */
const needsEscape = new Uint8Array(128);
for (let b = 0; b < 0x20; b++) needsEscape[b] = 1;
needsEscape[0x22] = 1;
needsEscape[0x5c] = 1;

/** The output, reused across frames (a frame's text is copied out of it): grown when a reply needs more. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Transcoder state for one frame. Writes JSON bytes, not strings: a string value that JSON need not escape
 * (no controls, quotes or backslashes, valid UTF-8, which JSON.stringify leaves as it is) is copied byte
 * for byte, so nothing is allocated per value.
 */
class Transcoder {
  pos: number;
  at = 0;
  message: string | undefined;
  readonly #frame: Buffer;
  /** Key spans of the maps being read, [start, length] pairs, per open map from `#keysFrom`. */
  #keys: number[] = [];

  constructor(frame: Buffer, pos: number) {
    this.#frame = frame;
    this.pos = pos;
  }

  /** Room for `n` more output bytes. */
  room(n: number): void {
    if (this.at + n <= scratch.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, this.at + n));
    scratch.copy(bigger, 0, 0, this.at);
    scratch = bigger;
  }

  /** Writes ASCII text (numbers, literals): a loop, cheaper than a native write for a few bytes. */
  ascii(text: string): void {
    this.room(text.length);
    let at = this.at;
    for (let i = 0; i < text.length; i++) scratch[at++] = text.charCodeAt(i);
    this.at = at;
  }

  byte(b: number): void {
    this.room(1);
    scratch[this.at++] = b;
  }

  /** Writes the value at `pos` as JSON; false when it is outside the subset (the caller falls back). */
  value(depth: number): boolean {
    const frame = this.#frame;
    const pos = this.pos;
    const b = frame[pos];
    if (b === undefined) return false;
    if (b <= 0x7f) {
      this.#int(b, pos + 1);
      return true;
    }
    if (b >= 0xe0) {
      this.#int(b - 0x100, pos + 1);
      return true;
    }
    if (b <= 0x8f) return this.#map(b & 0x0f, pos + 1, depth);
    if (b <= 0x9f) return this.#array(b & 0x0f, pos + 1, depth);
    if (b <= 0xbf) return this.#string(pos + 1, b & 0x1f);
    const left = frame.length - pos - 1;
    switch (b) {
      case 0xc0:
        this.ascii('null');
        this.pos = pos + 1;
        return true;
      case 0xc2:
        this.ascii('false');
        this.pos = pos + 1;
        return true;
      case 0xc3:
        this.ascii('true');
        this.pos = pos + 1;
        return true;
      case 0xcb: {
        if (left < 8) return false;
        const v = frame.readDoubleBE(pos + 1);
        // JSON.stringify writes non-finite numbers as null, and finite ones as String does.
        this.ascii(Number.isFinite(v) ? String(v) : 'null');
        this.pos = pos + 9;
        return true;
      }
      case 0xcc:
        if (left < 1) return false;
        this.#int(frame[pos + 1] as number, pos + 2);
        return true;
      case 0xd0:
        if (left < 1) return false;
        this.#int(frame.readInt8(pos + 1), pos + 2);
        return true;
      case 0xcd:
        if (left < 2) return false;
        this.#int(frame.readUInt16BE(pos + 1), pos + 3);
        return true;
      case 0xd1:
        if (left < 2) return false;
        this.#int(frame.readInt16BE(pos + 1), pos + 3);
        return true;
      case 0xce:
        if (left < 4) return false;
        this.#int(frame.readUInt32BE(pos + 1), pos + 5);
        return true;
      case 0xd2:
        if (left < 4) return false;
        this.#int(frame.readInt32BE(pos + 1), pos + 5);
        return true;
      case 0xd9:
        if (left < 1) return false;
        return this.#string(pos + 2, frame[pos + 1] as number);
      case 0xda:
        if (left < 2) return false;
        return this.#string(pos + 3, frame.readUInt16BE(pos + 1));
      case 0xdb:
        if (left < 4) return false;
        return this.#string(pos + 5, frame.readUInt32BE(pos + 1));
      case 0xdc:
        if (left < 2) return false;
        return this.#array(frame.readUInt16BE(pos + 1), pos + 3, depth);
      case 0xdd:
        if (left < 4) return false;
        return this.#array(frame.readUInt32BE(pos + 1), pos + 5, depth);
      case 0xde:
        if (left < 2) return false;
        return this.#map(frame.readUInt16BE(pos + 1), pos + 3, depth);
      case 0xdf:
        if (left < 4) return false;
        return this.#map(frame.readUInt32BE(pos + 1), pos + 5, depth);
      default:
        // bin, extensions, float32, 64-bit integers, the unused 0xc1: the general decoder's business.
        return false;
    }
  }

  #int(n: number, next: number): void {
    this.pos = next;
    if (n >= 0 && n < 10) return this.byte(0x30 + n);
    this.ascii(String(n));
  }

  /** Writes the string of `len` bytes at `start` as JSON; false when it is not valid UTF-8. */
  #string(start: number, len: number): boolean {
    const frame = this.#frame;
    const end = start + len;
    if (end > frame.length) return false;
    let high = false;
    for (let i = start; i < end; i++) {
      const b = frame[i] as number;
      if (b >= 0x80) high = true;
      else if (needsEscape[b]) return this.#escaped(start, end);
    }
    if (high && !isUtf8(frame.subarray(start, end))) return false;
    this.room(len + 2);
    let at = this.at;
    scratch[at++] = 0x22;
    // Short strings (most): a loop costs less than a native copy's call.
    if (len > 64) at += frame.copy(scratch, at, start, end);
    else for (let i = start; i < end; i++) scratch[at++] = frame[i] as number;
    scratch[at++] = 0x22;
    this.at = at;
    this.pos = end;
    return true;
  }

  /** A string JSON escapes: decoded and written as JSON.stringify writes it. */
  #escaped(start: number, end: number): boolean {
    const frame = this.#frame;
    const sub = frame.subarray(start, end);
    if (!isUtf8(sub)) return false;
    const json = JSON.stringify(sub.toString('utf8'));
    this.room(Buffer.byteLength(json));
    this.at += scratch.write(json, this.at, 'utf8');
    this.pos = end;
    return true;
  }

  #array(n: number, at: number, depth: number): boolean {
    // The envelope is level one and data level two (ENV-5); deeper frames are the general path's to refuse.
    if (depth >= MAX_NESTING) return false;
    this.pos = at;
    this.byte(0x5b);
    for (let i = 0; i < n; i++) {
      if (i > 0) this.byte(0x2c);
      if (!this.value(depth + 1)) return false;
    }
    this.byte(0x5d);
    return true;
  }

  #map(n: number, at: number, depth: number): boolean {
    // Big maps go the general way too: repeated keys are looked for by a linear scan.
    if (depth >= MAX_NESTING || n > MAX_MAP_ENTRIES) return false;
    const frame = this.#frame;
    const keys = this.#keys;
    const from = keys.length;
    this.pos = at;
    this.byte(0x7b);
    for (let i = 0; i < n; i++) {
      if (i > 0) this.byte(0x2c);
      const kp = this.pos;
      const kb = frame[kp];
      if (kb === undefined) return false;
      let start: number;
      let len: number;
      if (kb >= 0xa0 && kb <= 0xbf) {
        start = kp + 1;
        len = kb & 0x1f;
      } else if (kb === 0xd9 && kp + 1 < frame.length) {
        start = kp + 2;
        len = frame[kp + 1] as number;
      } else {
        return false;
      }
      const first = frame[start];
      // An integer-like key is ordered first by JSON.stringify, and msgpackr renames __proto__: both decoded.
      if (len > 0 && first !== undefined && first >= 0x30 && first <= 0x39) return false;
      if (len === 9 && bytesAre(frame, start, '__proto__')) return false;
      // A repeated key is one property of the decoded object, but would be two here.
      for (let k = from; k < keys.length; k += 2) {
        if (keys[k + 1] !== len) continue;
        const other = keys[k] as number;
        let same = true;
        for (let i = 0; i < len && same; i++) same = frame[start + i] === frame[other + i];
        if (same) return false;
      }
      keys.push(start, len);
      if (!this.#string(start, len)) return false;
      this.byte(0x3a);
      const isMessage = depth === 2 && len === 7 && bytesAre(frame, start, 'message');
      const valueAt = this.pos;
      if (!this.value(depth + 1)) return false;
      if (isMessage) {
        const v = frame[valueAt] as number;
        const s = v >= 0xa0 && v <= 0xbf ? [valueAt + 1, v & 0x1f] : v === 0xd9 ? [valueAt + 2, frame[valueAt + 1] as number] : v === 0xda ? [valueAt + 3, frame.readUInt16BE(valueAt + 1)] : v === 0xdb ? [valueAt + 5, frame.readUInt32BE(valueAt + 1)] : undefined;
        if (s) this.message = frame.toString('utf8', s[0], (s[0] as number) + (s[1] as number));
      }
    }
    keys.length = from;
    this.byte(0x7d);
    return true;
  }
}

/**
 * The console's reply: `head` (the envelope's JSON up to its data, without the closing brace), then
 * `,"data":` and the reply's data as JSON.stringify of the decoded data would write it, then `}`. Undefined
 * when the data is outside the subset this reads (the caller decodes the frame as usual).
 */
export function transcodeReply(frame: Buffer, reply: RelayedReply, head: string): RelayedData | undefined {
  const t = new Transcoder(frame, reply.dataAt);
  t.room(Buffer.byteLength(head) + 8);
  t.at = scratch.write(head, 0, 'utf8');
  if (reply.dataAt >= 0) {
    t.ascii(',"data":');
    // The envelope is level one, its data level two.
    if (!t.value(2) || t.pos !== frame.length) return undefined;
  }
  t.byte(0x7d);
  // Copied out: the socket may hold the bytes until they are written, and the scratch is reused.
  const out = Buffer.allocUnsafe(t.at);
  scratch.copy(out, 0, 0, t.at);
  return { json: out, message: t.message };
}
