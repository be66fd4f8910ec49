/**
 * The wire as an outside implementer reads it: a hand-written msgpack decoder and encoder, a JSON check
 * and a chunk-header reader, none of them sharing code with protocol/ (no msgpackr, no codec.ts). Tests
 * that decode the gateway's frames with these catch what a lenient library would hide: msgpackr's
 * `undefined` extension, a null where the contract allows a string or nothing, an unknown field.
 *
 * msgpack: the types of the msgpack specification except the extension family (fixext 1-16, ext 8/16/32)
 * and the never-used 0xc1; map keys must be strings; the value must use every byte of the frame.
 */

/** A frame the contract does not allow. */
export class WireViolation extends Error {
  override name = 'WireViolation';
}

/** One envelope as PROTOCOL.md ENV-2 defines it. */
export interface WireEnvelope {
  readonly msgId: number;
  readonly cid?: string;
  readonly flowId?: string;
  readonly sn?: string;
  readonly result?: number;
  readonly data?: unknown;
  readonly jsessionId?: string;
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });
const textEncoder = new TextEncoder();

/** Decodes one msgpack value that must fill `bytes` exactly; throws WireViolation on any extension type. */
export function decodeStrictMsgpack(bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.byteLength) throw new WireViolation(`msgpack truncated at byte ${at}`);
  };
  const u8 = () => {
    need(1);
    return view.getUint8(at++);
  };
  const take = (n: number): Uint8Array => {
    need(n);
    const out = bytes.subarray(at, at + n);
    at += n;
    return out;
  };
  const uint = (size: 1 | 2 | 4): number => {
    need(size);
    const v = size === 1 ? view.getUint8(at) : size === 2 ? view.getUint16(at) : view.getUint32(at);
    at += size;
    return v;
  };
  const str = (n: number): string => textDecoder.decode(take(n));
  const array = (n: number, depth: number): unknown[] => {
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) out.push(value(depth + 1));
    return out;
  };
  const map = (n: number, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const key = value(depth + 1);
      if (typeof key !== 'string') throw new WireViolation(`msgpack map key is ${typeof key}, not a string`);
      if (key === '__proto__' || Object.hasOwn(out, key)) throw new WireViolation(`msgpack map key "${key}" repeated or forbidden`);
      out[key] = value(depth + 1);
    }
    return out;
  };
  const value = (depth: number): unknown => {
    if (depth > 200) throw new WireViolation('msgpack nested too deep');
    const at0 = at;
    const b = u8();
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if ((b & 0xf0) === 0x80) return map(b & 0x0f, depth);
    if ((b & 0xf0) === 0x90) return array(b & 0x0f, depth);
    if ((b & 0xe0) === 0xa0) return str(b & 0x1f);
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return take(uint(1)).slice();
      case 0xc5: return take(uint(2)).slice();
      case 0xc6: return take(uint(4)).slice();
      case 0xca: need(4); at += 4; return view.getFloat32(at - 4);
      case 0xcb: need(8); at += 8; return view.getFloat64(at - 8);
      case 0xcc: return uint(1);
      case 0xcd: return uint(2);
      case 0xce: return uint(4);
      case 0xcf: need(8); at += 8; return Number(view.getBigUint64(at - 8));
      case 0xd0: need(1); at += 1; return view.getInt8(at - 1);
      case 0xd1: need(2); at += 2; return view.getInt16(at - 2);
      case 0xd2: need(4); at += 4; return view.getInt32(at - 4);
      case 0xd3: need(8); at += 8; return Number(view.getBigInt64(at - 8));
      case 0xd9: return str(uint(1));
      case 0xda: return str(uint(2));
      case 0xdb: return str(uint(4));
      case 0xdc: return array(uint(2), depth);
      case 0xdd: return array(uint(4), depth);
      case 0xde: return map(uint(2), depth);
      case 0xdf: return map(uint(4), depth);
      default: {
        const ext = b === 0xd4 || b === 0xd5 || b === 0xd6 || b === 0xd7 || b === 0xd8 || b === 0xc7 || b === 0xc8 || b === 0xc9;
        throw new WireViolation(`${ext ? 'msgpack extension type' : 'msgpack byte never used'} 0x${b.toString(16)} at byte ${at0}`);
      }
    }
  };
  const out = value(0);
  if (at !== bytes.byteLength) throw new WireViolation(`${bytes.byteLength - at} bytes after the msgpack value`);
  return out;
}

/** Encodes plain values (null, booleans, numbers, strings, bytes, arrays, string-keyed objects) as msgpack; undefined entries are left out. */
export function encodeStrictMsgpack(value: unknown): Uint8Array {
  const parts: number[] = [];
  const push = (...b: number[]): void => void parts.push(...b);
  // Element by element: spreading a large string's bytes into one call would overflow the argument limit.
  const pushAll = (b: ArrayLike<number>): void => {
    for (let i = 0; i < b.length; i++) parts.push(b[i] as number);
  };
  const be = (n: number, size: 1 | 2 | 4) => {
    for (let i = size - 1; i >= 0; i--) push(Math.floor(n / 2 ** (8 * i)) & 0xff);
  };
  const head = (n: number, fix: number | undefined, fixMax: number, c16: number, c32: number, c8?: number) => {
    if (fix !== undefined && n <= fixMax) push(fix | n);
    else if (c8 !== undefined && n <= 0xff) push(c8, n);
    else if (n <= 0xffff) {
      push(c16);
      be(n, 2);
    } else {
      push(c32);
      be(n, 4);
    }
  };
  const write = (v: unknown): void => {
    if (v === null) return push(0xc0);
    if (typeof v === 'boolean') return push(v ? 0xc3 : 0xc2);
    if (typeof v === 'number') {
      if (Number.isInteger(v) && v >= 0 && v <= 0xffffffff) {
        if (v <= 0x7f) return push(v);
        if (v <= 0xff) return push(0xcc, v);
        if (v <= 0xffff) return push(0xcd, v >> 8, v & 0xff);
        push(0xce);
        return be(v, 4);
      }
      if (Number.isInteger(v) && v < 0 && v >= -32) return push(v + 0x100);
      const f = new DataView(new ArrayBuffer(8));
      f.setFloat64(0, v);
      push(0xcb);
      return pushAll(new Uint8Array(f.buffer));
    }
    if (typeof v === 'string') {
      const bytes = textEncoder.encode(v);
      head(bytes.length, 0xa0, 31, 0xda, 0xdb, 0xd9);
      return pushAll(bytes);
    }
    if (v instanceof Uint8Array) {
      head(v.length, undefined, 0, 0xc5, 0xc6, 0xc4);
      return pushAll(v);
    }
    if (Array.isArray(v)) {
      head(v.length, 0x90, 15, 0xdc, 0xdd);
      return v.forEach(write);
    }
    if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      head(entries.length, 0x80, 15, 0xde, 0xdf);
      for (const [k, x] of entries) {
        write(k);
        write(x);
      }
      return;
    }
    throw new WireViolation(`cannot encode ${typeof v}`);
  };
  write(value);
  return Uint8Array.from(parts);
}

/** Parses one JSON text frame; the value must be an object. */
export function decodeStrictJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new WireViolation(`not JSON: ${(err as Error).message}`);
  }
}

const STRING_FIELDS = ['cid', 'flowId', 'sn', 'jsessionId'] as const;

/**
 * Checks a decoded value against ENV-2: an object whose only fields are the envelope's, each of its type
 * (a string field is a string or absent, never null or an extension), `msgId` present.
 */
export function checkEnvelope(value: unknown): WireEnvelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) throw new WireViolation('envelope is not a map');
  const rec = value as Record<string, unknown>;
  for (const key of Object.keys(rec)) {
    if (!['msgId', 'result', 'data', ...STRING_FIELDS].includes(key)) throw new WireViolation(`unknown envelope field "${key}"`);
  }
  if (!Number.isSafeInteger(rec.msgId) || (rec.msgId as number) < 0) throw new WireViolation(`msgId ${String(rec.msgId)} is not an integer >= 0`);
  for (const key of STRING_FIELDS) {
    if (key in rec && typeof rec[key] !== 'string') throw new WireViolation(`${key} is ${rec[key] === null ? 'null' : typeof rec[key]}, not a string`);
  }
  if ('result' in rec && !(Number.isInteger(rec.result) && (rec.result as number) >= 0 && (rec.result as number) <= 6)) throw new WireViolation(`result ${String(rec.result)} is not 0-6`);
  return rec as unknown as WireEnvelope;
}

/** A binary chunk frame (CHUNK-1), read by hand. */
export interface WireChunk {
  readonly flowId: string;
  readonly flags: number;
  readonly seq: number;
  readonly timestamp: number;
  readonly payload: Uint8Array;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(parts: readonly Uint8Array[]): number {
  let c = 0xffffffff;
  for (const p of parts) for (const b of p) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const FLOW_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Reads a chunk frame (magic 0xC1); throws WireViolation for a bad header or CRC. */
export function decodeWireChunk(bytes: Uint8Array): WireChunk {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] !== 0xc1 || bytes[1] !== 1) throw new WireViolation('not a version 1 chunk');
  const len = bytes[3] ?? 0;
  const head = 4 + len + 4 + 8;
  if (bytes.byteLength < head + 4) throw new WireViolation('chunk truncated');
  const flowId = String.fromCharCode(...bytes.subarray(4, 4 + len));
  if (!FLOW_ID.test(flowId)) throw new WireViolation(`chunk flowId "${flowId}"`);
  const crc = view.getUint32(head);
  if (crc32([bytes.subarray(0, head), bytes.subarray(head + 4)]) !== crc) throw new WireViolation('chunk CRC mismatch');
  return { flowId, flags: bytes[2] ?? 0, seq: view.getUint32(4 + len), timestamp: view.getFloat64(8 + len), payload: bytes.subarray(head + 4) };
}

/** Writes a chunk frame (CHUNK-1) by hand. */
export function encodeWireChunk(c: Omit<WireChunk, 'timestamp'> & { readonly timestamp?: number }): Uint8Array {
  const id = textEncoder.encode(c.flowId);
  const head = 4 + id.length + 4 + 8;
  const out = new Uint8Array(head + 4 + c.payload.length);
  const view = new DataView(out.buffer);
  out.set([0xc1, 1, c.flags, id.length]);
  out.set(id, 4);
  view.setUint32(4 + id.length, c.seq);
  view.setFloat64(8 + id.length, c.timestamp ?? 0);
  out.set(c.payload, head + 4);
  view.setUint32(head, crc32([out.subarray(0, head), out.subarray(head + 4)]));
  return out;
}

/** What one received frame is: an envelope (checked), or a chunk. */
export type WireFrame = { readonly kind: 'envelope'; readonly env: WireEnvelope; readonly binary: boolean } | { readonly kind: 'chunk'; readonly chunk: WireChunk };

/** Decodes a frame as received from `ws` (text or binary) by the contract alone. */
export function decodeWireFrame(data: Uint8Array | string, isBinary: boolean): WireFrame {
  if (!isBinary) return { kind: 'envelope', env: checkEnvelope(decodeStrictJson(typeof data === 'string' ? data : textDecoder.decode(data))), binary: false };
  const bytes = typeof data === 'string' ? textEncoder.encode(data) : data;
  if (bytes[0] === 0xc1) return { kind: 'chunk', chunk: decodeWireChunk(bytes) };
  return { kind: 'envelope', env: checkEnvelope(decodeStrictMsgpack(bytes)), binary: true };
}
