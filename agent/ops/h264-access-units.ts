/*
 * H.264 Annex B cut into access units (one coded picture each, with the parameter sets and SEI before
 * it), as a capture command's stdout arrives. WebCodecs decodes one EncodedVideoChunk per picture: a
 * chunk holding part of a picture decodes as green garbage, and a stream whose pictures are cut in two
 * counts twice its frame rate. x264 with `-tune zerolatency` writes several slices per picture (one per
 * thread), so a unit cannot end at every slice.
 *
 * Where a new access unit begins (H.264 7.4.1.2.3, for the streams our agent and simulator produce:
 * no arbitrary slice order, no redundant pictures), once the current unit holds a coded slice:
 *  - an access unit delimiter (NAL type 9);
 *  - SEI, SPS or PPS (6, 7, 8), or types 13-18 (SPS extension, prefix and reserved NAL units);
 *  - a slice with a header (types 1, 2, 5) whose first_mb_in_slice is 0.
 * first_mb_in_slice is the first ue(v) of the slice header, and ue(v) = 0 is the single bit 1, so the test
 * is the top bit of the byte after the NAL header. That byte is never an emulation-prevention 0x03: one
 * is only inserted after two 0x00 payload bytes, and the NAL header byte of a slice is not 0x00.
 * Anything else (slice data partitions 3 and 4, end of sequence or stream 10 and 11, filler 12) stays
 * with the picture it follows.
 */

/** One access unit: a picture with the parameter sets before it, Annex-B bytes with their start codes. */
export interface AccessUnit {
  readonly bytes: Uint8Array;
  /** The unit holds an IDR slice (type 5): a decoder can start here. */
  readonly key: boolean;
}

/** Bytes of one unit held at most while waiting for it to end; past it the input is not H.264 we can use, and it is dropped. */
export const MAX_PENDING_BYTES = 4 * 1024 * 1024;
/** The buffer's first size: a sub-stream picture or two, so most streams never grow it. */
const INITIAL_CAPACITY = 64 * 1024;

const NAL_IDR = 5;
const NAL_AUD = 9;

/** NAL types that carry a slice header (so first_mb_in_slice) and make a unit a picture. */
function isSliceWithHeader(type: number): boolean {
  return type === 1 || type === 2 || type === NAL_IDR;
}

/** NAL types that begin a new access unit once the current one holds a slice, whatever follows them. */
function beginsUnit(type: number): boolean {
  return type === NAL_AUD || type === 6 || type === 7 || type === 8 || (type >= 13 && type <= 18);
}

const NONE: readonly AccessUnit[] = Object.freeze([]);

/**
 * Splits an Annex-B stream that arrives in pieces into access units. A unit is let out once the first
 * NAL unit of the next one has begun (nothing earlier shows that a picture has no more slices), so a live
 * stream runs one picture behind its source. Start codes are kept, so each unit is itself a valid Annex-B
 * stream. The input is copied once into a buffer that is reused (and grows only for a bigger picture);
 * each unit let out is one copy of its bytes, and nothing is scanned twice.
 */
export class AccessUnitSplitter {
  #buf = new Uint8Array(INITIAL_CAPACITY);
  /** Bytes held: buf[0, len). The current unit, when begun, starts at 0. */
  #len = 0;
  /** Where scanning for the next start code resumes. */
  #scan = 0;
  /** A start code has been seen: buf[0] is the start of the current unit. Before it, bytes are not H.264 and are dropped. */
  #begun = false;
  /** The current unit holds a coded slice. */
  #hasSlice = false;
  #key = false;

  /** Takes the next bytes; returns the units they completed, in order. */
  push(bytes: Uint8Array): readonly AccessUnit[] {
    let out: AccessUnit[] | undefined;
    let from = 0;
    while (from < bytes.length) {
      // Appends what fits, scans it, and compacts; a piece bigger than the room left is taken in parts.
      const room = this.#room(bytes.length - from);
      if (room === 0) {
        // One unit outgrew MAX_PENDING_BYTES: not a stream we can cut; drop it and look for the next start code.
        this.#reset();
        continue;
      }
      this.#buf.set(bytes.subarray(from, from + room), this.#len);
      this.#len += room;
      from += room;
      out = this.#scanAvailable(out);
    }
    return out ?? NONE;
  }

  /** The source ended: the unit still held, when it holds a picture. */
  end(): readonly AccessUnit[] {
    const unit = this.#begun && this.#hasSlice ? { bytes: this.#buf.slice(0, this.#len), key: this.#key } : undefined;
    this.#reset();
    return unit ? [unit] : NONE;
  }

  #reset(): void {
    this.#len = 0;
    this.#scan = 0;
    this.#begun = false;
    this.#hasSlice = false;
    this.#key = false;
  }

  /** Makes room for up to `want` more bytes (growing the buffer up to the cap); returns how many fit. */
  #room(want: number): number {
    const free = this.#buf.length - this.#len;
    if (free >= want || this.#buf.length >= MAX_PENDING_BYTES) return Math.min(free, want);
    let size = this.#buf.length;
    while (size - this.#len < want && size < MAX_PENDING_BYTES) size *= 2;
    const grown = new Uint8Array(Math.min(size, MAX_PENDING_BYTES));
    grown.set(this.#buf.subarray(0, this.#len));
    this.#buf = grown;
    return Math.min(grown.length - this.#len, want);
  }

  /** Finds the start codes in what is held, lets out the units they end, and moves what remains to the front. */
  #scanAvailable(out: AccessUnit[] | undefined): AccessUnit[] | undefined {
    const buf = this.#buf;
    const len = this.#len;
    let unitStart = 0;
    let i = this.#scan;
    for (; i + 2 < len; i++) {
      // A start code needs two zero bytes before the 1: skip ahead fast on any other byte.
      if ((buf[i + 2] as number) > 1) {
        i += 2;
        continue;
      }
      if (buf[i] !== 0 || buf[i + 1] !== 0 || buf[i + 2] !== 1) continue;
      const header = i + 3;
      // The NAL header (and for a slice, the byte after it) decide where this NAL belongs: wait for them.
      if (header >= len) break;
      const type = (buf[header] as number) & 0x1f;
      const slice = isSliceWithHeader(type);
      if (slice && header + 1 >= len) break;
      // A zero byte right before 00 00 01 is a 4-byte start code's, and goes with the NAL it starts.
      const codeStart = i > unitStart && buf[i - 1] === 0 ? i - 1 : i;
      if (!this.#begun) {
        this.#begun = true;
        unitStart = codeStart;
      } else if (this.#hasSlice && (beginsUnit(type) || (slice && ((buf[header + 1] as number) & 0x80) !== 0))) {
        (out ??= []).push({ bytes: buf.slice(unitStart, codeStart), key: this.#key });
        unitStart = codeStart;
        this.#hasSlice = false;
        this.#key = false;
      }
      if (slice || type === 3 || type === 4) this.#hasSlice = true;
      if (type === NAL_IDR) this.#key = true;
      // Resume at the NAL header: a start code cannot overlap this one.
      i = header - 1;
    }
    // The last two bytes (or a start code whose header has not arrived) are looked at again with the next bytes.
    const resume = Math.max(0, Math.min(i, len - 2));
    // A unit let out leaves room at the front. Before the first start code, bytes are dropped, but for the
    // one before where scanning resumes: it may be the leading zero of a 4-byte start code.
    const keep = this.#begun ? unitStart : Math.max(0, resume - 1);
    if (keep > 0) {
      buf.copyWithin(0, keep, len);
      this.#len = len - keep;
    }
    this.#scan = resume - keep;
    return out;
  }
}

/** Cuts a whole Annex-B stream into access units, with {@link AccessUnitSplitter}'s rules. */
export function accessUnits(data: Uint8Array): AccessUnit[] {
  const splitter = new AccessUnitSplitter();
  return [...splitter.push(data), ...splitter.end()];
}
