import { type Options, Packr } from 'msgpackr';
import type { Envelope } from './envelope.ts';
import { DecodeError } from './errors.ts';
import { MAX_NESTING, msgpackNestedDeeperThan, nestedDeeperThan } from './nesting.ts';
import type { Frame } from './transport.ts';

export { MAX_NESTING, msgpackNestedDeeperThan, nestedDeeperThan } from './nesting.ts';

/** WebSocket subprotocols; JSON text frames are the spec-compatible default. */
export const Subprotocol = {
  Json: 'mdm.v1.json',
  Msgpack: 'mdm.v1.msgpack',
} as const;
export type SubprotocolName = (typeof Subprotocol)[keyof typeof Subprotocol];

/**
 * The subprotocols a server speaks, most preferred first. A name is `mdm.v<contract version>.<encoding>`
 * (CONN-4): a later version is added here ahead of the earlier ones, which stay, so a peer that offers only
 * an earlier version keeps being served in it.
 */
export const SERVER_SUBPROTOCOLS: readonly SubprotocolName[] = [Subprotocol.Msgpack, Subprotocol.Json];

/** The subprotocol a server answers to a peer's offer: its most preferred one offered; false for none (JSON without a subprotocol). */
export function chooseSubprotocol(offered: ReadonlySet<string>): SubprotocolName | false {
  return SERVER_SUBPROTOCOLS.find((name) => offered.has(name)) ?? false;
}

/** Frames larger than this are refused before parsing, so a hostile peer cannot make us allocate without bound. */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** Encodes envelopes to frames and back for one subprotocol. */
export interface Codec {
  readonly subprotocol: SubprotocolName;
  encode(env: Envelope): Frame;
  /**
   * Decodes one frame by its kind (text JSON, binary msgpack: {@link decodeFrame}), whichever codec was
   * negotiated; throws DecodeError for anything that is not a valid envelope.
   */
  decode(frame: Frame): Envelope;
}

/** Checks that an untrusted decoded value has the envelope's shape. */
export function toEnvelope(value: unknown): Envelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DecodeError('Envelope must be an object');
  }
  const rec = value as Record<string, unknown>;
  // One pass over the keys with a switch: this check runs for every message, so it avoids allocating.
  for (const key in rec) {
    const v = rec[key];
    switch (key) {
      case 'msgId':
        if (!Number.isSafeInteger(v) || (v as number) < 0) throw new DecodeError('msgId must be a non-negative integer');
        break;
      case 'cid':
      case 'flowId':
      case 'sn':
      case 'jsessionId':
        if (v !== undefined && typeof v !== 'string') throw new DecodeError(`${key} must be a string`);
        break;
      case 'result':
        if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 7)) throw new DecodeError('result must be an integer 0..7');
        break;
      case 'data':
        break;
      default:
        throw new DecodeError(`Unknown envelope field "${key}"`);
    }
  }
  if (rec.msgId === undefined) throw new DecodeError('msgId must be a non-negative integer');
  return rec as unknown as Envelope;
}

const TOO_DEEP = `Frame nested deeper than ${MAX_NESTING} levels`;

function refuseProto(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new DecodeError('Forbidden key __proto__');
  return value;
}

/** Decodes one JSON text frame (ENV-1). */
export function decodeJsonFrame(frame: string): Envelope {
  // Length in UTF-16 units; the socket layer caps the byte size before a frame reaches us.
  if (frame.length > MAX_FRAME_BYTES) {
    throw new DecodeError('Frame too large');
  }
  // A reviver runs per key and costs about four fifths of decode throughput, so it is used only when
  // the frame mentions __proto__ at all; it then refuses the key but not a string that contains it.
  let parsed: unknown;
  try {
    parsed = frame.includes('__proto__') ? JSON.parse(frame, refuseProto) : JSON.parse(frame);
  } catch (err) {
    if (err instanceof DecodeError) throw err;
    throw new DecodeError('Malformed JSON', { cause: err });
  }
  // JSON.parse itself copes with any depth, but the value could not be sent on (ENV-5). A frame of n
  // levels needs 2n characters, so short frames, the most common, skip the walk.
  if (frame.length > 2 * MAX_NESTING && nestedDeeperThan(parsed, MAX_NESTING)) throw new DecodeError(TOO_DEEP);
  return toEnvelope(parsed);
}

/**
 * Absent means absent (ENV-1): a field or map entry whose value is undefined is left out, as
 * JSON.stringify does, rather than written as msgpackr's `undefined` extension (d4 00 00), which any
 * other decoder reads as ExtType 0 where the contract allows a string or nothing. An undefined array
 * element, which cannot be left out, is nil (JSON writes null there too). skipValues makes msgpackr size
 * each map exactly instead of always using map16, which costs no measurable throughput (bench: codec encode).
 */
// skipValues is a msgpackr option (pack.js) that its type declarations leave out.
const packrOptions: Options & { readonly skipValues: readonly unknown[] } = {
  useRecords: false,
  mapsAsObjects: true,
  moreTypes: false,
  skipValues: [undefined],
  encodeUndefinedAsNil: true,
};
const packr = new Packr(packrOptions);

/** Decodes one msgpack binary frame (ENV-1). msgpackr itself renames a `__proto__` key on decode. */
export function decodeMsgpackFrame(frame: Uint8Array): Envelope {
  if (frame.byteLength > MAX_FRAME_BYTES) throw new DecodeError('Frame too large');
  // Before msgpackr, which recurses per level and would overflow the stack (ENV-5). A frame of n
  // levels needs n bytes, so short frames skip the scan.
  if (frame.byteLength > MAX_NESTING && msgpackNestedDeeperThan(frame, MAX_NESTING)) throw new DecodeError(TOO_DEEP);
  let value: unknown;
  try {
    value = packr.unpack(frame);
  } catch (err) {
    throw new DecodeError('Malformed msgpack', { cause: err });
  }
  return toEnvelope(value);
}

/**
 * Decodes a received frame by its kind, whatever the subprotocol: a text frame is JSON, a binary frame
 * (other than a chunk, CHUNK-3) is msgpack. The subprotocol decides what a peer sends, not what it may
 * receive, so a msgpack envelope on a JSON socket is read like any other.
 */
export function decodeFrame(frame: Frame): Envelope {
  return typeof frame === 'string' ? decodeJsonFrame(frame) : decodeMsgpackFrame(frame);
}

/** JSON text frames. */
export const jsonCodec: Codec = {
  subprotocol: Subprotocol.Json,
  encode: (env) => JSON.stringify(env),
  decode: decodeFrame,
};

/** msgpack binary frames (msgpackr, plain maps, no records, no extensions). */
export const msgpackCodec: Codec = {
  subprotocol: Subprotocol.Msgpack,
  encode: (env) => packr.pack(env),
  decode: decodeFrame,
};

/** The codec for a negotiated subprotocol; an empty or unknown name means the JSON default. */
export function codecFor(subprotocol: string): Codec {
  return subprotocol === Subprotocol.Msgpack ? msgpackCodec : jsonCodec;
}
