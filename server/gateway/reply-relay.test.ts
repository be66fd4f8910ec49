import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame, msgpackCodec, Result } from '../../protocol/index.ts';
import { readReply, type RelayedReply, transcodeReply } from './reply-relay.ts';

/** The data part of the relayed answer, as text (the test's head is `{`, so the answer is `{,"data":...}`). */
function transcodeData(frame: Buffer, reply: RelayedReply): { json: string | undefined; message: string | undefined } | undefined {
  const out = transcodeReply(frame, reply, '{');
  if (!out) return undefined;
  const text = out.json.toString('utf8');
  return { json: text === '{}' ? undefined : text.slice(',"data":'.length + 1, -1), message: out.message };
}

const pack = (env: object): Buffer => Buffer.from(msgpackCodec.encode(env as never) as Uint8Array);

/** What the console would have been sent for this frame before: the decoded data through JSON.stringify. */
function viaDecode(frame: Buffer): { json: string | undefined; message: string | undefined } {
  const data = decodeFrame(new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength)).data;
  const message = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as { message?: unknown }).message : undefined;
  return { json: JSON.stringify(data), message: typeof message === 'string' ? message : undefined };
}

function relayed(frame: Buffer): { json: string | undefined; message: string | undefined } | undefined {
  const reply = readReply(frame);
  return reply && transcodeData(frame, reply);
}

// Values a device may answer with: what JSON can carry, plus what msgpack adds (binary, big integers,
// awkward keys), so the property covers both what is transcoded and what falls back.
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
    fc.double(),
    fc.string({ unit: 'binary' }),
    fc.string(),
    fc.constantFrom('message', '__proto__', '0', '12', 'a"b\\c\n', '\u2028', 'é中'),
    fc.uint8Array({ maxLength: 4 }),
    fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n }),
  ),
  tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('tree'), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('message', '0', '7x', '__proto__')), tie('tree'), { maxKeys: 5 })),
}));

describe('relaying a device reply as JSON without decoding it', () => {
  it('gives the console exactly what JSON.stringify of the decoded data gave, or leaves the frame to the decoder', () => {
    let relayedCount = 0;
    fc.assert(
      fc.property(value.tree, fc.option(fc.string({ minLength: 1 }), { nil: undefined }), (data, message) => {
        const body = message !== undefined && typeof data === 'object' && data !== null && !Array.isArray(data) && !ArrayBuffer.isView(data) ? { ...data, message } : data;
        const frame = pack({ msgId: 65538, cid: 'g123', sn: 'SIM0001', result: Result.Success, data: body });
        let expected: ReturnType<typeof viaDecode> | 'throws';
        try {
          expected = viaDecode(frame);
        } catch {
          expected = 'throws';
        }
        const got = relayed(frame);
        if (got === undefined) return;
        relayedCount++;
        expect(got).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
    expect(relayedCount).toBeGreaterThan(200);
  });

  it('reads the envelope fields of a final reply, with or without data', () => {
    const frame = pack({ msgId: 7, cid: 'gX', sn: 'S1', flowId: 'f1', result: Result.Fail, data: { message: 'no' } });
    const reply = readReply(frame);
    expect(reply).toMatchObject({ msgId: 7, cid: 'gX', sn: 'S1', flowId: 'f1', result: Result.Fail });
    expect(reply && transcodeData(frame, reply)).toEqual({ json: '{"message":"no"}', message: 'no' });
    const bare = pack({ msgId: 7, cid: 'gX', result: Result.Success });
    const read = readReply(bare);
    expect(read && transcodeData(bare, read)).toEqual({ json: undefined, message: undefined });
  });

  it('leaves to the decoder what is not a final reply or not a well-formed envelope', () => {
    // Progress (result 6), no cid, no result, an unknown key, a wrongly typed field, data not last, trailing bytes.
    for (const env of [
      { msgId: 7, cid: 'g', result: Result.Pushing, data: {} },
      { msgId: 7, result: Result.Success, data: {} },
      { msgId: 7, cid: 'g', data: {} },
      { msgId: 7, cid: 'g', result: 0, extra: 1 },
      { msgId: 7, cid: 5, result: 0 },
      { msgId: -1, cid: 'g', result: 0 },
      { msgId: 7, cid: 'g', result: 9 },
      { msgId: 7, cid: 'g', data: {}, result: 0 },
    ]) {
      expect(readReply(pack(env))).toBeUndefined();
    }
    const trailing = Buffer.concat([pack({ msgId: 7, cid: 'g', result: 0, data: 1 }), Buffer.from([0xc0])]);
    const reply = readReply(trailing);
    expect(reply && transcodeData(trailing, reply)).toBeUndefined();
  });

  it('leaves to the decoder repeated keys, invalid UTF-8 and deep nesting', () => {
    // {msgId: 7, cid: 'g', result: 0, data: {a: 1, a: 2}} written by hand: msgpackr would not repeat a key.
    const head = pack({ msgId: 7, cid: 'g', result: 0, data: 0 }).subarray(0, -1);
    const repeated = Buffer.concat([head, Buffer.from([0x82, 0xa1, 0x61, 0x01, 0xa1, 0x61, 0x02])]);
    const invalid = Buffer.concat([head, Buffer.from([0xa2, 0xc3, 0x28])]);
    let deep: unknown = 1;
    for (let i = 0; i < 80; i++) deep = [deep];
    const nested = pack({ msgId: 7, cid: 'g', result: 0, data: deep });
    for (const frame of [repeated, invalid, nested]) {
      const reply = readReply(frame);
      expect(reply).toBeDefined();
      expect(reply && transcodeData(frame, reply)).toBeUndefined();
    }
  });
});
