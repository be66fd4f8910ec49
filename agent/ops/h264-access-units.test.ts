import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AccessUnit, AccessUnitSplitter, accessUnits, MAX_PENDING_BYTES } from './h264-access-units.ts';

/** x264 with -tune zerolatency and 4 slices a picture, 10 pictures (tests/fixtures/h264/README.md). */
const SLICED = new Uint8Array(fs.readFileSync(new URL('../../tests/fixtures/h264/testsrc-320x240-10f-4slices.h264', import.meta.url)));
/** The simulator's clip: one slice a picture, SPS/PPS before every IDR. */
const SIMULATOR = new Uint8Array(fs.readFileSync(new URL('../simulator/assets/main-320x240-30fps.h264', import.meta.url)));

/** NAL types of an Annex-B stream, and for slices whether first_mb_in_slice is 0. */
function nals(bytes: Uint8Array): { type: number; firstMb0: boolean }[] {
  const out: { type: number; firstMb0: boolean }[] = [];
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1) {
      out.push({ type: (bytes[i + 3] as number) & 0x1f, firstMb0: ((bytes[i + 4] ?? 0) & 0x80) !== 0 });
      i += 2;
    }
  }
  return out;
}

const hex = (units: readonly AccessUnit[]) => units.map((u) => [u.key, Buffer.from(u.bytes).toString('hex')]);

/** Feeds `data` cut at `cuts` (positions, any order, duplicates allowed), then ends. */
function splitInPieces(data: Uint8Array, cuts: readonly number[]): AccessUnit[] {
  const splitter = new AccessUnitSplitter();
  const units: AccessUnit[] = [];
  let from = 0;
  for (const at of [...[...new Set(cuts)].sort((a, b) => a - b), data.length]) {
    units.push(...splitter.push(data.subarray(from, at)));
    from = at;
  }
  units.push(...splitter.end());
  return units;
}

const nal = (header: number, ...payload: number[]) => [0, 0, 0, 1, header, ...payload];

describe('H.264 access units from a multi-slice stream (x264 -tune zerolatency)', () => {
  it('cuts the 10-picture clip into exactly 10 access units, each with all 4 slices, the first keyed with SPS and PPS', () => {
    const units = accessUnits(SLICED);
    expect(units).toHaveLength(10);
    for (const unit of units) {
      const slices = nals(unit.bytes).filter((n) => n.type === 1 || n.type === 5);
      expect(slices).toHaveLength(4);
      // The picture's first slice starts at macroblock 0 and its other slices do not.
      expect(slices.map((s) => s.firstMb0)).toEqual([true, false, false, false]);
    }
    const first = nals(units[0]?.bytes ?? new Uint8Array()).map((n) => n.type);
    expect(first.slice(0, 2)).toEqual([7, 8]);
    expect(first.filter((t) => t === 5)).toHaveLength(4);
    expect(units.map((u) => u.key)).toEqual([true, false, false, false, false, false, false, false, false, false]);
    // Nothing is lost or duplicated: the units are the stream.
    expect(Buffer.concat(units.map((u) => u.bytes)).equals(Buffer.from(SLICED))).toBe(true);
  });

  it('cuts a one-slice stream at every picture, with SPS and PPS on each key frame', () => {
    const units = accessUnits(SIMULATOR);
    expect(units).toHaveLength(120);
    expect(units.every((u) => nals(u.bytes).filter((n) => n.type === 1 || n.type === 5).length === 1)).toBe(true);
    expect(units.filter((u) => u.key)).toHaveLength(8);
    for (const u of units.filter((k) => k.key)) expect(nals(u.bytes).map((n) => n.type).slice(0, 2)).toEqual([7, 8]);
  });

  it('splits the same however the bytes are chunked as they arrive', () => {
    for (const clip of [SLICED, SIMULATOR]) {
      const whole = hex(accessUnits(clip));
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: clip.length - 1 }), { maxLength: 60 }), (cuts) => {
          expect(hex(splitInPieces(clip, cuts))).toEqual(whole);
        }),
        { numRuns: 150 },
      );
    }
  });

  it('lets a picture out as soon as the next one begins, byte by byte too', () => {
    const units = accessUnits(SLICED);
    const splitter = new AccessUnitSplitter();
    const outAt: number[] = [];
    for (let i = 0; i < SLICED.length; i++) for (const _ of splitter.push(SLICED.subarray(i, i + 1))) outAt.push(i + 1);
    expect(splitter.end()).toHaveLength(1);
    // Each unit is out once its successor's start code and the two bytes after it (NAL header, first_mb) are in.
    let end = 0;
    const expected = units.slice(0, -1).map((u) => (end += u.bytes.length) + 4 + 2);
    expect(outAt).toEqual(expected);
  });

  it('starts a unit at an access unit delimiter, drops bytes before the first start code, and keeps 3- and 4-byte start codes', () => {
    const aud = nal(0x09, 0xf0);
    const slice = (header: number, first: boolean) => nal(header, first ? 0x88 : 0x02, 0x84);
    const stream = new Uint8Array([
      0xde, 0xad, // not H.264: dropped
      ...aud, ...nal(0x67, 0x42), ...nal(0x68, 0xce), ...slice(0x65, true), ...slice(0x65, false),
      ...aud, ...slice(0x41, true).slice(1), ...slice(0x41, false),
      // An SEI after a slice begins the next picture even though its slice would be a continuation.
      ...nal(0x06, 0x05), ...slice(0x41, false),
    ]);
    const units = accessUnits(stream);
    expect(units.map((u) => u.key)).toEqual([true, false, false]);
    expect(units.map((u) => nals(u.bytes).map((n) => n.type))).toEqual([[9, 7, 8, 5, 5], [9, 1, 1], [6, 1]]);
    expect(Buffer.from(units[0]?.bytes ?? []).subarray(0, 4).toString('hex')).toBe('00000001');
    expect(Buffer.from(units[1]?.bytes ?? []).subarray(0, 8).toString('hex')).toBe('0000000109f00000');
    expect(hex(splitInPieces(stream, [1, 2, 3, 5, 7, 20, 21, 40]))).toEqual(hex(units));
  });

  it('drops a unit that outgrows its bound and picks up at the next start code', () => {
    const splitter = new AccessUnitSplitter();
    const picture = (first: number) => new Uint8Array([...nal(0x65, first, 0x84)]);
    expect(splitter.push(picture(0x88))).toHaveLength(0);
    // A slice that never ends (no start code in 4 MiB and more): the splitter's memory stays bounded.
    const noise = new Uint8Array(64 * 1024).fill(0xab);
    for (let sent = 0; sent <= MAX_PENDING_BYTES; sent += noise.length) expect(splitter.push(noise)).toHaveLength(0);
    expect(splitter.push(picture(0x88))).toHaveLength(0);
    expect(splitter.push(picture(0x88)).map((u) => u.bytes.length)).toEqual([7]);
    expect(splitter.end().map((u) => u.bytes.length)).toEqual([7]);
  });
});
