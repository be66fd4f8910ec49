import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASELINE_64X36, HIGH_64X36 } from './h264.fixture.ts';
import { accessUnits, avcDecoderConfig, codecString, decoderSetup, lengthPrefixed, nalType, nalUnits, parseSps, rbsp, sameSetup, toDecodableUnits } from './h264.ts';

/** Writes the fields of an SPS bit by bit, as an encoder would. */
class BitWriter {
  readonly bits: number[] = [];
  u(n: number, v: number): this {
    for (let i = n - 1; i >= 0; i--) this.bits.push(Math.floor(v / 2 ** i) % 2);
    return this;
  }
  ue(v: number): this {
    const len = Math.floor(Math.log2(v + 1));
    return this.u(len, 0).u(len + 1, v + 1);
  }
  bytes(): Uint8Array {
    const bits = [...this.bits, 1]; // rbsp_stop_one_bit
    while (bits.length % 8 !== 0) bits.push(0);
    return Uint8Array.from({ length: bits.length / 8 }, (_, i) => bits.slice(i * 8, i * 8 + 8).reduce((b, bit) => b * 2 + bit, 0));
  }
}

/** Inserts emulation prevention bytes so that a payload cannot contain a start code (H.264 7.4.1). */
function emulationPrevented(payload: Uint8Array): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (const b of payload) {
    if (zeros >= 2 && b <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

const annexB = (nals: readonly Uint8Array[], long: readonly boolean[] = []) =>
  Uint8Array.from(nals.flatMap((nal, i) => [...(long[i] ? [0, 0, 0, 1] : [0, 0, 1]), ...nal]));

/** A NAL unit as encoders write them: a header byte, an emulation-prevented payload, a non-zero last byte. */
const arbitraryNal = fc
  .tuple(fc.integer({ min: 1, max: 23 }), fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 255 }))
  .map(([type, body, last]) => Uint8Array.from([0x60 | type, ...emulationPrevented(Uint8Array.from([...body, last]))]));

describe('Annex-B parsing', () => {
  it('returns exactly the NAL units written, for any units and any mix of 3- and 4-byte start codes', () => {
    fc.assert(
      fc.property(fc.array(arbitraryNal, { maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 }), (nals, long) => {
        expect(nalUnits(annexB(nals, long)).map((n) => [...n])).toEqual(nals.map((n) => [...n]));
      }),
    );
  });

  it('undoes emulation prevention: the RBSP is the payload that was written', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 128 }), (payload) => {
        expect([...rbsp(Uint8Array.from([0x67, ...emulationPrevented(payload)]))]).toEqual([...payload]);
      }),
    );
  });

  it('splits real encoder output into its pictures, parameter sets and SEI going with the IDR after them', () => {
    const units = accessUnits(nalUnits(BASELINE_64X36));
    expect(units.map((u) => [u.key, u.nals.map(nalType)])).toEqual([
      [true, [7, 8, 6, 5]],
      [false, [1]],
      [true, [7, 8, 5]],
      [false, [1]],
    ]);
    expect(accessUnits(nalUnits(HIGH_64X36)).map((u) => [u.key, u.nals.map(nalType)])).toEqual([[true, [7, 8, 6, 5]]]);
  });

  it('starts a new access unit at a slice with first_mb_in_slice 0, and keeps later slices of a picture together', () => {
    const idr = (first: boolean) => Uint8Array.from([0x65, first ? 0x88 : 0x40, 0x11]);
    const p = Uint8Array.from([0x41, 0x9a, 0x22]);
    const units = accessUnits([Uint8Array.from([0x09, 0xf0]), idr(true), idr(false), p, Uint8Array.from([0x06, 0x05, 0x80]), p]);
    expect(units.map((u) => [u.key, u.nals.map(nalType)])).toEqual([
      [true, [9, 5, 5]],
      [false, [1]],
      [false, [6, 1]],
    ]);
  });
});

describe('decoder configuration from the SPS', () => {
  it('reads real encoder output as the profile and level it was made with, at its cropped picture size', () => {
    expect(decoderSetup(nalUnits(BASELINE_64X36))).toMatchObject({ codec: 'avc1.42C01E', codedWidth: 64, codedHeight: 36 });
    expect(decoderSetup(nalUnits(HIGH_64X36))).toMatchObject({ codec: 'avc1.640028', codedWidth: 64, codedHeight: 36 });
  });

  it('reads profile, level and the cropped picture size of any SPS, high profiles and field coding included', () => {
    fc.assert(
      fc.property(
        fc.record({
          profile: fc.constantFrom(66, 77, 100),
          constraints: fc.integer({ min: 0, max: 0xfc }).map((c) => c & 0xfc),
          level: fc.constantFrom(10, 30, 31, 40, 51),
          widthMbs: fc.integer({ min: 1, max: 240 }),
          heightUnits: fc.integer({ min: 1, max: 135 }),
          frameMbsOnly: fc.boolean(),
          crop: fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3), fc.nat(3)),
          pocType: fc.constantFrom(0, 1, 2),
        }),
        (s) => {
          const w = new BitWriter().u(8, s.profile).u(8, s.constraints).u(8, s.level).ue(0);
          if (s.profile === 100) w.ue(1).ue(0).ue(0).u(1, 0).u(1, 0); // 4:2:0, 8-bit, no scaling matrices
          w.ue(4).ue(s.pocType);
          if (s.pocType === 0) w.ue(2);
          if (s.pocType === 1) w.u(1, 0).ue(0).ue(0).ue(1).ue(3);
          w.ue(3).u(1, 0).ue(s.widthMbs - 1).ue(s.heightUnits - 1).u(1, s.frameMbsOnly ? 1 : 0);
          if (!s.frameMbsOnly) w.u(1, 0);
          w.u(1, 1);
          const [l, r, t, b] = s.crop;
          w.u(1, 1).ue(l).ue(r).ue(t).ue(b).u(1, 0);
          const sps = Uint8Array.from([0x67, ...emulationPrevented(w.bytes())]);
          const fields = 2 - (s.frameMbsOnly ? 1 : 0);
          expect(parseSps(sps)).toEqual({
            profileIdc: s.profile,
            constraints: s.constraints,
            levelIdc: s.level,
            width: s.widthMbs * 16 - 2 * (l + r),
            height: fields * s.heightUnits * 16 - 2 * fields * (t + b),
          });
        },
      ),
    );
  });

  it('names the codec as RFC 6381 does and lays out the avcC record of ISO/IEC 14496-15', () => {
    expect(codecString({ profileIdc: 100, constraints: 0, levelIdc: 40, width: 1920, height: 1080 })).toBe('avc1.640028');
    const sps = Uint8Array.from([0x67, 0x42, 0xc0, 0x1e, 0xd9]);
    const pps = Uint8Array.from([0x68, 0xcb, 0x8c]);
    expect([...avcDecoderConfig(sps, pps)]).toEqual([1, 0x42, 0xc0, 0x1e, 0xff, 0xe1, 0, 5, ...sps, 1, 0, 3, ...pps]);
  });

  it('has no configuration without both parameter sets, or with a truncated SPS', () => {
    const [sps, pps] = nalUnits(BASELINE_64X36);
    expect(decoderSetup([sps as Uint8Array])).toBeUndefined();
    expect(decoderSetup([(sps as Uint8Array).subarray(0, 6), pps as Uint8Array])).toBeUndefined();
    expect(() => parseSps(pps as Uint8Array)).toThrow(RangeError);
  });
});

describe('units for VideoDecoder', () => {
  it('gives each picture as length-prefixed NAL units without parameter sets, with the configuration on key frames', () => {
    const units = toDecodableUnits(BASELINE_64X36);
    const nals = nalUnits(BASELINE_64X36);
    expect(units.map((u) => [u.key, u.setup?.codec])).toEqual([
      [true, 'avc1.42C01E'],
      [false, undefined],
      [true, 'avc1.42C01E'],
      [false, undefined],
    ]);
    const [, , sei, idr, p] = nals as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    expect([...(units[0]?.data ?? [])]).toEqual([...lengthPrefixed([sei, idr])]);
    expect([...(units[1]?.data ?? [])]).toEqual([...lengthPrefixed([p])]);
    // Every key frame repeats the same configuration, so the decoder is configured once per stream.
    const [first, , second] = units.map((u) => u.setup);
    const high = toDecodableUnits(HIGH_64X36)[0]?.setup;
    expect(first && second && sameSetup(first, second)).toBe(true);
    expect(first && high && sameSetup(first, high)).toBe(false);
  });

  it('writes each NAL unit behind its 4-byte big-endian length', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { maxLength: 5 }), (nals) => {
        const out = lengthPrefixed(nals);
        const view = new DataView(out.buffer);
        const back: number[][] = [];
        for (let at = 0; at < out.length; ) {
          const len = view.getUint32(at);
          back.push([...out.subarray(at + 4, at + 4 + len)]);
          at += 4 + len;
        }
        expect(back).toEqual(nals.map((n) => [...n]));
      }),
    );
  });
});
