import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonCodec, msgpackCodec, MAX_FRAME_BYTES } from './codec.ts';
import type { Envelope } from './envelope.ts';
import { DecodeError } from './errors.ts';
import type { ResultCode } from './catalogue/enums.ts';

const jsonValue = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('__proto__'));

const envelopeArb: fc.Arbitrary<Envelope> = fc.record(
  {
    msgId: fc.nat(),
    cid: fc.string(),
    flowId: fc.string(),
    sn: fc.string(),
    result: fc.integer({ min: 0, max: 6 }).map((n) => n as ResultCode),
    data: jsonValue,
    jsessionId: fc.string(),
  },
  { requiredKeys: ['msgId'] },
);

const runs = { numRuns: 1000 };

describe('codecs', () => {
  for (const codec of [jsonCodec, msgpackCodec]) {
    it(`CODEC-1 ${codec.subprotocol}: decode(encode(e)) equals e`, () => {
      fc.assert(
        fc.property(envelopeArb, (env) => {
          // JSON has no -0; normalise the expectation the way JSON does.
          expect(codec.decode(codec.encode(env))).toEqual(JSON.parse(JSON.stringify(env)));
        }),
        runs,
      );
    });
  }

  it('CODEC-2 json: arbitrary text never throws anything but DecodeError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        try {
          jsonCodec.decode(text);
        } catch (err) {
          expect(err).toBeInstanceOf(DecodeError);
        }
      }),
      runs,
    );
  });

  it('CODEC-2 msgpack: arbitrary bytes never throw anything but DecodeError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => {
        try {
          msgpackCodec.decode(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(DecodeError);
        }
      }),
      runs,
    );
  });

  it('ENV-4 refuses __proto__ keys in both encodings', () => {
    expect(() => jsonCodec.decode('{"msgId":1,"data":{"__proto__":{"polluted":true}}}')).toThrow(DecodeError);
    // {msgId: 1, data: {__proto__: {x: 1}}} written by hand, since encoders will not produce it.
    const key = (s: string) => [0xa0 + s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
    const bytes = new Uint8Array([0x82, ...key('msgId'), 0x01, ...key('data'), 0x81, ...key('__proto__'), 0x81, ...key('x'), 0x01]);
    const env = msgpackCodec.decode(bytes);
    expect(Object.getPrototypeOf(env.data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('ENV-4 accepts __proto__ inside string values', () => {
    expect(jsonCodec.decode('{"msgId":1,"sn":"__proto__","data":"a __proto__ b"}')).toEqual({ msgId: 1, sn: '__proto__', data: 'a __proto__ b' });
  });

  it('ENV-4 refuses oversized frames before parsing', () => {
    expect(() => jsonCodec.decode(`{"msgId":1,"data":"${'x'.repeat(MAX_FRAME_BYTES)}"}`)).toThrow('Frame too large');
  });

  it('ENV-2 refuses envelopes with unknown fields or bad types', () => {
    expect(() => jsonCodec.decode('{"msgId":1,"extra":2}')).toThrow(DecodeError);
    expect(() => jsonCodec.decode('{"msgId":"1"}')).toThrow(DecodeError);
    expect(() => jsonCodec.decode('{"msgId":1,"result":9}')).toThrow(DecodeError);
    expect(() => jsonCodec.decode('[]')).toThrow(DecodeError);
  });
});
