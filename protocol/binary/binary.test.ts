import fc from 'fast-check';
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../errors.ts';
import { type Chunk, ChunkFlag, decodeChunk, encodeChunk, isChunkFrame } from './chunk-frame.ts';
import { ChunkReceiver } from './chunk-receiver.ts';
import { ChunkSender } from './chunk-sender.ts';
import { crc32, useNativeCrc32 } from './crc32.ts';
import { sha256Hex } from './sha256.ts';
import { msgpackCodec } from '../codec.ts';

const runs = { numRuns: 1000 };
const flowIdArb = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/);
const chunkArb: fc.Arbitrary<Chunk> = fc.record({
  flowId: flowIdArb,
  seq: fc.nat({ max: 0xffffffff }),
  timestamp: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  flags: fc.constantFrom(0, ChunkFlag.KeyFrame, ChunkFlag.Last, ChunkFlag.KeyFrame | ChunkFlag.Last),
  payload: fc.uint8Array({ maxLength: 300 }),
});

describe('binary chunks', () => {
  it('crc32 matches the standard check value', () => {
    expect(crc32(new Uint8Array([...'123456789'].map((c) => c.charCodeAt(0))))).toBe(0xcbf43926);
  });

  it('crc32 gives zlib\'s value for any range and any split, with the portable loop and with a native one', () => {
    const range = fc.uint8Array({ maxLength: 200 }).chain((bytes) =>
      fc.tuple(fc.constant(bytes), fc.nat({ max: bytes.length })).chain(([b, start]) =>
        fc.tuple(fc.constant(b), fc.constant(start), fc.integer({ min: start, max: b.length })).chain(([b2, s, end]) => fc.tuple(fc.constant(b2), fc.constant(s), fc.constant(end), fc.integer({ min: s, max: end }))),
      ),
    );
    for (const native of [undefined, zlib.crc32]) {
      useNativeCrc32(native);
      try {
        fc.assert(
          fc.property(range, ([bytes, start, end, split]) => {
            const want = zlib.crc32(bytes.subarray(start, end));
            expect(crc32(bytes, 0, start, end)).toBe(want);
            expect(crc32(bytes, crc32(bytes, 0, start, split), split, end)).toBe(want);
            // A Buffer (what a socket hands over) gives the same as a plain Uint8Array.
            expect(crc32(Buffer.from(bytes), 0, start, end)).toBe(want);
          }),
          runs,
        );
      } finally {
        useNativeCrc32(undefined);
      }
    }
  });

  it('CHUNK-1 chunk frames round-trip', () => {
    fc.assert(
      fc.property(chunkArb, (chunk) => {
        const frame = encodeChunk(chunk);
        expect(isChunkFrame(frame)).toBe(true);
        expect(decodeChunk(frame)).toEqual(chunk);
      }),
      runs,
    );
  });

  it('CHUNK-2 a frame with any single bit flipped is refused', () => {
    fc.assert(
      fc.property(chunkArb, fc.nat(), fc.nat({ max: 7 }), (chunk, at, bit) => {
        const frame = encodeChunk(chunk);
        const i = 1 + (at % (frame.length - 1)); // the magic byte decides whether it is a chunk at all
        frame[i] = (frame[i] as number) ^ (1 << bit);
        expect(() => decodeChunk(frame)).toThrow(DecodeError);
      }),
      runs,
    );
  });

  it('CHUNK-3 chunk frames are never mistaken for msgpack envelopes', () => {
    expect(isChunkFrame(msgpackCodec.encode({ msgId: 1 }) as Uint8Array)).toBe(false);
  });

  it('CHUNK-4 any delivery order, with duplicates, reassembles the same bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 4096 }),
        fc.integer({ min: 1, max: 700 }),
        fc.array(fc.nat(), { maxLength: 64 }),
        (bytes, chunkSize, shuffle) => {
          const sender = new ChunkSender('f1', bytes, chunkSize, Number.MAX_SAFE_INTEGER);
          const chunks = sender.take();
          // A seeded permutation plus some duplicates.
          const order = chunks.map((c, i) => ({ c, k: shuffle[i % Math.max(1, shuffle.length)] ?? i }));
          order.sort((a, b) => a.k - b.k);
          const delivery = [...order.map((o) => o.c), ...chunks.slice(0, shuffle.length % 3)];
          const receiver = new ChunkReceiver(sender.manifest);
          for (const c of delivery) receiver.accept(decodeChunk(encodeChunk(c)));
          expect(receiver.complete).toBe(true);
          expect(receiver.bytes()).toEqual(bytes);
        },
      ),
      runs,
    );
  });

  it('CHUNK-5 the window bounds chunks in flight, and resuming after loss completes the transfer', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 3000 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 50 }),
        (bytes, chunkSize, window, lossPattern) => {
          const sender = new ChunkSender('f2', bytes, chunkSize, window);
          const receiver = new ChunkReceiver(sender.manifest);
          let i = 0;
          for (let round = 0; round < 10_000 && !sender.done; round++) {
            const batch = sender.take();
            expect(sender.inFlight).toBeLessThanOrEqual(window);
            let lost = false;
            for (const c of batch) {
              // A lost chunk stands for a dropped connection: the rest of the batch is lost too.
              lost ||= lossPattern[i++ % lossPattern.length] === true && round % 2 === 0;
              if (!lost) receiver.accept(c);
            }
            if (lost) sender.resumeFrom(receiver.progress.next);
            else sender.ack(receiver.progress.next);
          }
          expect(sender.done).toBe(true);
          expect(receiver.bytes()).toEqual(bytes);
        },
      ),
      runs,
    );
  });

  it('refuses chunks that do not fit the manifest', () => {
    const receiver = new ChunkReceiver({ flowId: 'f', size: 10, chunkSize: 4 });
    expect(() => receiver.accept({ flowId: 'f', seq: 3, timestamp: 0, flags: 0, payload: new Uint8Array(1) })).toThrow(DecodeError);
    expect(() => receiver.accept({ flowId: 'f', seq: 2, timestamp: 0, flags: 0, payload: new Uint8Array(4) })).toThrow(DecodeError);
    expect(() => receiver.accept({ flowId: 'g', seq: 0, timestamp: 0, flags: 0, payload: new Uint8Array(4) })).toThrow(DecodeError);
  });

  it('sha256Hex agrees with node:crypto', async () => {
    const bytes = new Uint8Array([1, 2, 3, 250]);
    expect(await sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
