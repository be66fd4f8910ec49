/*
 * The little H.264 bitstream knowledge the WebCodecs path needs, pure and browser-free: splitting an
 * Annex-B stream into NAL units and access units, reading the sequence parameter set, and building the
 * codec string and avcC record that `VideoDecoder.configure` takes. Devices send Annex-B access units
 * (protocol/PROTOCOL.md); WebCodecs is given length-prefixed (AVC) units plus an avcC description, so
 * the configuration is checked up front with `isConfigSupported` instead of failing mid-stream.
 */

/** NAL unit types this player looks at (ITU-T H.264 table 7-1). */
export const NalType = {
  Slice: 1,
  Idr: 5,
  Sei: 6,
  Sps: 7,
  Pps: 8,
  AccessUnitDelimiter: 9,
} as const;

/** A unit's type: the low five bits of its first byte. */
export function nalType(nal: Uint8Array): number {
  return (nal[0] ?? 0) & 0x1f;
}

/**
 * The NAL units of an Annex-B stream, without their start codes (3 or 4 bytes; a zero byte before a
 * 3-byte start code belongs to the start code, not to the unit before it). Bytes before the first start
 * code are not a unit and are dropped.
 */
export function nalUnits(data: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  let begin = -1;
  for (let i = 0; i + 2 < data.length; i++) {
    if (data[i] !== 0 || data[i + 1] !== 0 || data[i + 2] !== 1) continue;
    if (begin >= 0) {
      let end = i;
      while (end > begin && data[end - 1] === 0) end--;
      if (end > begin) units.push(data.subarray(begin, end));
    }
    begin = i + 3;
    i += 2;
  }
  if (begin >= 0 && begin < data.length) units.push(data.subarray(begin));
  return units;
}

/** One picture's NAL units (parameter sets and SEI included) and whether it is an IDR picture. */
export interface AccessUnit {
  readonly nals: readonly Uint8Array[];
  readonly key: boolean;
}

/**
 * Groups NAL units into access units (H.264 7.4.1.2.3): a delimiter, parameter set or SEI after a
 * picture's slices starts the next unit, and so does a slice whose first_mb_in_slice is 0 (its ue(v)
 * is then the single bit 1, the top bit of the byte after the header).
 */
export function accessUnits(nals: readonly Uint8Array[]): AccessUnit[] {
  const units: AccessUnit[] = [];
  let current: Uint8Array[] = [];
  let sawSlice = false;
  let key = false;
  const close = () => {
    if (current.length > 0) units.push({ nals: current, key });
    current = [];
    sawSlice = false;
    key = false;
  };
  for (const nal of nals) {
    const type = nalType(nal);
    const isSlice = type === NalType.Slice || type === NalType.Idr;
    const startsPicture = isSlice && ((nal[1] ?? 0) & 0x80) !== 0;
    const prefix = type === NalType.AccessUnitDelimiter || type === NalType.Sps || type === NalType.Pps || type === NalType.Sei || (type >= 14 && type <= 18);
    if (sawSlice && (prefix || startsPicture)) close();
    current.push(nal);
    if (isSlice) sawSlice = true;
    if (type === NalType.Idr) key = true;
  }
  close();
  return units;
}

/** Reads exp-Golomb and fixed-width fields from an RBSP (emulation prevention bytes removed). */
class BitReader {
  readonly #bytes: Uint8Array;
  #bit = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.#bytes[this.#bit >> 3];
      if (byte === undefined) throw new RangeError('H.264 parameter set is truncated');
      v = v * 2 + ((byte >> (7 - (this.#bit & 7))) & 1);
      this.#bit++;
    }
    return v;
  }

  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) {
      // 32 leading zeros would not fit any field of a parameter set: the data is not H.264.
      if (++zeros > 31) throw new RangeError('H.264 exp-Golomb code is too long');
    }
    return 2 ** zeros - 1 + this.u(zeros);
  }

  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -k / 2;
  }
}

/** The RBSP of a NAL unit: its payload after the header with emulation prevention bytes (00 00 03) removed. */
export function rbsp(nal: Uint8Array): Uint8Array {
  const out = new Uint8Array(nal.length);
  let n = 0;
  let zeros = 0;
  for (let i = 1; i < nal.length; i++) {
    const b = nal[i] as number;
    if (zeros >= 2 && b === 3) {
      zeros = 0;
      continue;
    }
    zeros = b === 0 ? zeros + 1 : 0;
    out[n++] = b;
  }
  return out.subarray(0, n);
}

/** The fields of a sequence parameter set the decoder configuration needs. */
export interface SequenceParameters {
  readonly profileIdc: number;
  /** constraint_set0..5 flags and the two reserved bits, as the byte after profile_idc. */
  readonly constraints: number;
  readonly levelIdc: number;
  /** Picture size after the SPS's cropping window, in pixels. */
  readonly width: number;
  readonly height: number;
}

/** Profiles whose SPS carries chroma format, bit depth and scaling lists (H.264 7.3.2.1.1). */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function skipScalingList(r: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + r.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** Parses a sequence parameter set NAL unit (header byte included); throws RangeError on truncated or invalid data. */
export function parseSps(nal: Uint8Array): SequenceParameters {
  if (nalType(nal) !== NalType.Sps) throw new RangeError(`NAL unit type ${nalType(nal)} is not a sequence parameter set`);
  const r = new BitReader(rbsp(nal));
  const profileIdc = r.u(8);
  const constraints = r.u(8);
  const levelIdc = r.u(8);
  r.ue(); // seq_parameter_set_id
  let chromaFormatIdc = 1;
  let separateColourPlane = 0;
  if (HIGH_PROFILES.has(profileIdc)) {
    chromaFormatIdc = r.ue();
    if (chromaFormatIdc === 3) separateColourPlane = r.u(1);
    r.ue(); // bit_depth_luma_minus8
    r.ue(); // bit_depth_chroma_minus8
    r.u(1); // qpprime_y_zero_transform_bypass_flag
    if (r.u(1) === 1) {
      for (let i = 0; i < (chromaFormatIdc === 3 ? 12 : 8); i++) if (r.u(1) === 1) skipScalingList(r, i < 6 ? 16 : 64);
    }
  }
  r.ue(); // log2_max_frame_num_minus4
  const pocType = r.ue();
  if (pocType === 0) r.ue();
  else if (pocType === 1) {
    r.u(1);
    r.se();
    r.se();
    const cycle = r.ue();
    for (let i = 0; i < cycle; i++) r.se();
  }
  r.ue(); // max_num_ref_frames
  r.u(1); // gaps_in_frame_num_value_allowed_flag
  const widthMbs = r.ue() + 1;
  const heightMapUnits = r.ue() + 1;
  const frameMbsOnly = r.u(1);
  if (frameMbsOnly === 0) r.u(1); // mb_adaptive_frame_field_flag
  r.u(1); // direct_8x8_inference_flag
  let [cropLeft, cropRight, cropTop, cropBottom] = [0, 0, 0, 0];
  if (r.u(1) === 1) [cropLeft, cropRight, cropTop, cropBottom] = [r.ue(), r.ue(), r.ue(), r.ue()];
  const arrayType = separateColourPlane === 1 ? 0 : chromaFormatIdc;
  const cropX = arrayType === 0 ? 1 : arrayType === 3 ? 1 : 2;
  const cropY = (arrayType === 0 || arrayType === 3 ? 1 : arrayType === 2 ? 1 : 2) * (2 - frameMbsOnly);
  return {
    profileIdc,
    constraints,
    levelIdc,
    width: widthMbs * 16 - cropX * (cropLeft + cropRight),
    height: (2 - frameMbsOnly) * heightMapUnits * 16 - cropY * (cropTop + cropBottom),
  };
}

const hex2 = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');

/** The RFC 6381 codec string of a stream, e.g. `avc1.42C01E` for constrained baseline level 3.0. */
export function codecString(sps: SequenceParameters): string {
  return `avc1.${hex2(sps.profileIdc)}${hex2(sps.constraints)}${hex2(sps.levelIdc)}`;
}

/** An AVCDecoderConfigurationRecord (ISO/IEC 14496-15 5.3.3.1) for one SPS and one PPS, 4-byte NAL lengths. */
export function avcDecoderConfig(sps: Uint8Array, pps: Uint8Array): Uint8Array {
  const out = new Uint8Array(11 + sps.length + pps.length);
  out.set([1, sps[1] ?? 0, sps[2] ?? 0, sps[3] ?? 0, 0xff, 0xe1, sps.length >> 8, sps.length & 0xff]);
  out.set(sps, 8);
  const at = 8 + sps.length;
  out.set([1, pps.length >> 8, pps.length & 0xff], at);
  out.set(pps, at + 3);
  return out;
}

/** NAL units in AVC (length-prefixed) form: each preceded by its length as a 4-byte big-endian integer. */
export function lengthPrefixed(nals: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(nals.reduce((n, nal) => n + 4 + nal.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const nal of nals) {
    view.setUint32(at, nal.length);
    out.set(nal, at + 4);
    at += 4 + nal.length;
  }
  return out;
}

/** What `VideoDecoder.configure` needs for a stream, taken from a key frame's in-band parameter sets. */
export interface DecoderSetup {
  readonly codec: string;
  readonly description: Uint8Array;
  readonly codedWidth: number;
  readonly codedHeight: number;
}

/** The decoder configuration carried by an access unit, or undefined when it has no SPS and PPS (or a bad SPS). */
export function decoderSetup(nals: readonly Uint8Array[]): DecoderSetup | undefined {
  const sps = nals.find((n) => nalType(n) === NalType.Sps);
  const pps = nals.find((n) => nalType(n) === NalType.Pps);
  if (!sps || !pps) return undefined;
  try {
    const params = parseSps(sps);
    return { codec: codecString(params), description: avcDecoderConfig(sps, pps), codedWidth: params.width, codedHeight: params.height };
  } catch {
    return undefined;
  }
}

/** One incoming chunk as the WebCodecs path needs it: the frame in AVC form and the configuration it carries. */
export interface DecodableUnit {
  readonly key: boolean;
  readonly data: Uint8Array;
  readonly setup: DecoderSetup | undefined;
}

/**
 * Turns a chunk's Annex-B payload into what `EncodedVideoChunk` takes: parameter sets go to the decoder
 * configuration (they travel in-band before every key frame), the picture's NAL units become one
 * length-prefixed frame. A chunk holding several pictures yields one unit each.
 */
export function toDecodableUnits(payload: Uint8Array): DecodableUnit[] {
  return accessUnits(nalUnits(payload)).flatMap((unit) => {
    const picture = unit.nals.filter((n) => nalType(n) !== NalType.Sps && nalType(n) !== NalType.Pps && nalType(n) !== NalType.AccessUnitDelimiter);
    if (!picture.some((n) => nalType(n) === NalType.Slice || nalType(n) === NalType.Idr)) return [];
    return [{ key: unit.key, data: lengthPrefixed(picture), setup: unit.key ? decoderSetup(unit.nals) : undefined }];
  });
}

/** True when two configurations are the same, so the decoder need not be reconfigured. */
export const sameSetup = (a: DecoderSetup, b: DecoderSetup) =>
  a.codec === b.codec && a.codedWidth === b.codedWidth && a.description.length === b.description.length && a.description.every((v, i) => v === b.description[i]);
