import { DecodeError } from '../errors.ts';
import { crc32 } from './crc32.ts';

/**
 * First byte of every chunk frame. 0xC1 is never the first byte of a msgpack value nor of JSON text, so
 * chunk frames and envelope frames can share one socket under either subprotocol.
 */
export const CHUNK_MAGIC = 0xc1;
export const CHUNK_VERSION = 1;

/** Chunk flags. */
export const ChunkFlag = {
  /** An H.264 access unit that starts a group of pictures: a viewer may start (or resume) here. */
  KeyFrame: 1,
  /** The last chunk of a transfer. */
  Last: 2,
  /** A live stream's voice: one Opus packet, independent of every other (LIVE-3), beside the video on the same flow. */
  Audio: 4,
} as const;

/** Payload bytes per chunk at most; with the header this stays well under the 1 MiB frame cap. */
export const MAX_CHUNK_PAYLOAD = 512 * 1024;
const FLOW_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** One binary chunk of a flow (file bytes or a video frame). */
export interface Chunk {
  readonly flowId: string;
  readonly seq: number;
  /** Media timestamp in ms for streams; byte offset for file transfers. */
  readonly timestamp: number;
  readonly flags: number;
  readonly payload: Uint8Array;
}

// Layout, big-endian: magic u8 | version u8 | flags u8 | flowId length u8 | flowId ASCII |
// seq u32 | timestamp f64 | crc32 u32 | payload. The CRC covers every byte but its own four.
const FIXED = 4 + 4 + 8 + 4;

/** True when a binary frame is a chunk frame rather than an encoded envelope. */
export function isChunkFrame(frame: Uint8Array): boolean {
  return frame.length > 0 && frame[0] === CHUNK_MAGIC;
}

/** Encodes a chunk into one binary frame. */
export function encodeChunk(chunk: Chunk): Uint8Array {
  if (!FLOW_ID.test(chunk.flowId)) throw new RangeError('flowId must be 1-64 of A-Z a-z 0-9 _ . : -');
  if (!Number.isInteger(chunk.seq) || chunk.seq < 0 || chunk.seq > 0xffffffff) throw new RangeError('seq must be a u32');
  if (chunk.payload.length > MAX_CHUNK_PAYLOAD) throw new RangeError(`payload over ${MAX_CHUNK_PAYLOAD} bytes`);
  const idLen = chunk.flowId.length;
  const out = new Uint8Array(FIXED + idLen + chunk.payload.length);
  const view = new DataView(out.buffer);
  out[0] = CHUNK_MAGIC;
  out[1] = CHUNK_VERSION;
  out[2] = chunk.flags & 0xff;
  out[3] = idLen;
  for (let i = 0; i < idLen; i++) out[4 + i] = chunk.flowId.charCodeAt(i);
  let o = 4 + idLen;
  view.setUint32(o, chunk.seq);
  view.setFloat64(o + 4, chunk.timestamp);
  const crcAt = o + 12;
  out.set(chunk.payload, crcAt + 4);
  o = crcAt;
  view.setUint32(o, crc32(out, crc32(out, 0, 0, crcAt), crcAt + 4));
  return out;
}

/** Decodes a chunk frame; throws DecodeError when it is malformed or its CRC does not match. */
export function decodeChunk(frame: Uint8Array): Chunk {
  if (frame.length < FIXED + 1 || frame[0] !== CHUNK_MAGIC) throw new DecodeError('Not a chunk frame');
  if (frame[1] !== CHUNK_VERSION) throw new DecodeError(`Unsupported chunk version ${frame[1] ?? ''}`);
  const idLen = frame[3] as number;
  if (idLen < 1 || idLen > 64 || frame.length < FIXED + idLen) throw new DecodeError('Bad chunk flowId length');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  let flowId = '';
  for (let i = 0; i < idLen; i++) flowId += String.fromCharCode(frame[4 + i] as number);
  if (!FLOW_ID.test(flowId)) throw new DecodeError('Bad chunk flowId');
  const o = 4 + idLen;
  const crcAt = o + 12;
  const expected = view.getUint32(crcAt);
  if (crc32(frame, crc32(frame, 0, 0, crcAt), crcAt + 4) !== expected) throw new DecodeError('Chunk checksum mismatch');
  const timestamp = view.getFloat64(o + 4);
  if (!Number.isFinite(timestamp)) throw new DecodeError('Bad chunk timestamp');
  return { flowId, seq: view.getUint32(o), timestamp, flags: frame[2] as number, payload: frame.subarray(crcAt + 4) };
}

/** The flowId of a chunk frame without checking its CRC (for relays that pass the frame on unchanged); undefined when malformed. */
export function peekChunkFlowId(frame: Uint8Array): string | undefined {
  if (frame.length < FIXED + 1 || frame[0] !== CHUNK_MAGIC) return undefined;
  const idLen = frame[3] as number;
  if (idLen < 1 || idLen > 64 || frame.length < FIXED + idLen) return undefined;
  let flowId = '';
  for (let i = 0; i < idLen; i++) flowId += String.fromCharCode(frame[4 + i] as number);
  return FLOW_ID.test(flowId) ? flowId : undefined;
}
