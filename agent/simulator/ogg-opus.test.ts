import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_OPUS_PACKET, OggOpusReader, oggCrc, opusPacketMs, opusPackets } from './ogg-opus.ts';

const clip = new Uint8Array(fs.readFileSync(new URL('./assets/voice-48k-mono.opus', import.meta.url)));
const hex = (packets: readonly Uint8Array[]) => packets.map((p) => Buffer.from(p).toString('hex'));

/**
 * One Ogg page holding `packets` laced as RFC 3533 says; `continues` marks the first as the rest of the
 * previous page's packet, `open` leaves the last one open (its length must then be a multiple of 255).
 */
function page(packets: readonly Uint8Array[], opts: { seq: number; continues?: boolean; open?: boolean; serial?: number }): Uint8Array {
  const lacing: number[] = [];
  packets.forEach((p, i) => {
    for (let n = p.length; ; n -= 255) {
      if (n >= 255) lacing.push(255);
      else {
        if (!(opts.open && i === packets.length - 1)) lacing.push(n);
        break;
      }
    }
  });
  const body = Buffer.concat(packets);
  const out = new Uint8Array(27 + lacing.length + body.length);
  out.set([0x4f, 0x67, 0x67, 0x53, 0, opts.continues ? 1 : opts.seq === 0 ? 2 : 0]);
  const view = new DataView(out.buffer);
  view.setUint32(14, opts.serial ?? 1234, true);
  view.setUint32(18, opts.seq, true);
  out[26] = lacing.length;
  out.set(lacing, 27);
  out.set(body, 27 + lacing.length);
  view.setUint32(22, oggCrc(out), true);
  return out;
}

const head = new Uint8Array([...Buffer.from('OpusHead'), 1, 2, 0x38, 0x01, 0x80, 0xbb, 0, 0, 0, 0, 0]);
const tags = new Uint8Array([...Buffer.from('OpusTags'), 0, 0, 0, 0, 0, 0, 0, 0]);
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('Ogg Opus demuxing', () => {
  it('reads the committed voice clip: mono, 2 s of 20 ms packets', () => {
    const { channels, packets } = opusPackets(clip);
    expect(channels).toBe(1);
    expect(packets.length).toBeGreaterThanOrEqual(100);
    expect(packets.length).toBeLessThanOrEqual(102);
    expect(new Set(packets.map(opusPacketMs))).toEqual(new Set([20]));
  });

  it('yields the same packets however the stream is cut, byte by byte too', () => {
    const whole = hex(opusPackets(clip).packets);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: clip.length - 1 }), { maxLength: 30 }), (cuts) => {
        const reader = new OggOpusReader();
        const got: Uint8Array[] = [];
        let from = 0;
        for (const at of [...[...new Set(cuts)].sort((a, b) => a - b), clip.length]) {
          got.push(...reader.push(clip.subarray(from, at)));
          from = at;
        }
        expect(hex(got)).toEqual(whole);
      }),
      { numRuns: 100 },
    );
    const reader = new OggOpusReader();
    const got: Uint8Array[] = [];
    for (let i = 0; i < clip.length; i++) got.push(...reader.push(clip.subarray(i, i + 1)));
    expect(hex(got)).toEqual(whole);
  });

  it('joins a packet continued on the next page and a packet of exactly 255 bytes (a 0 lacing ends it)', () => {
    const long = bytes(600, 7);
    const exact = bytes(255, 9);
    const stream = Buffer.concat([
      page([head], { seq: 0 }),
      page([tags], { seq: 1 }),
      page([bytes(40, 1), long.subarray(0, 510)], { seq: 2, open: true }),
      page([long.subarray(510), exact, bytes(3, 2)], { seq: 3, continues: true }),
    ]);
    const reader = new OggOpusReader();
    expect(hex(reader.push(stream))).toEqual(hex([bytes(40, 1), long, exact, bytes(3, 2)]));
    expect(reader.channels).toBe(2);
  });

  it('treats its input as untrusted: skips garbage, damaged pages and their broken packet, other streams and oversized packets', () => {
    const damaged = page([bytes(10, 5)], { seq: 3 });
    damaged[30] = (damaged[30] as number) ^ 1;
    const stream = Buffer.concat([
      Buffer.from('noise OggS more noise'),
      page([head, tags], { seq: 0 }),
      page([bytes(20, 1), bytes(255, 3)], { seq: 2, open: true }),
      damaged,
      // Continues a packet whose middle was on the damaged page: its rest is dropped, the next packet kept.
      page([bytes(50, 3), bytes(7, 7)], { seq: 4, continues: true }),
      page([bytes(10, 8)], { seq: 5, serial: 99 }),
      page([bytes(MAX_OPUS_PACKET + 1, 4), bytes(6, 6)], { seq: 6 }),
    ]);
    expect(hex(new OggOpusReader().push(stream))).toEqual(hex([bytes(20, 1), bytes(7, 7), bytes(6, 6)]));
  });

  it('reads a packet\'s duration from its TOC byte', () => {
    expect(opusPacketMs(new Uint8Array([0x08]))).toBe(20); // SILK NB, 20 ms, one frame
    expect(opusPacketMs(new Uint8Array([0xf9]))).toBe(40); // CELT FB, 20 ms, two frames
    expect(opusPacketMs(new Uint8Array([0x7b, 0x03]))).toBe(60); // hybrid FB 20 ms, three frames (code 3)
    expect(opusPacketMs(new Uint8Array([]))).toBeUndefined();
  });
});
