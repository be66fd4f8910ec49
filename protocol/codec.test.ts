import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Packr } from 'msgpackr';
import { chooseSubprotocol, jsonCodec, msgpackCodec, MAX_FRAME_BYTES, SERVER_SUBPROTOCOLS, Subprotocol, MAX_NESTING, msgpackNestedDeeperThan, nestedDeeperThan } from './codec.ts';
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

  it('ENV-1 msgpack: an absent field is left out, never written as an extension type', () => {
    // {msgId: 2, result: 0}: what a heartbeat reply without cid, sn or data must be on the wire.
    const key = (s: string) => [0xa0 + s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
    const reply = msgpackCodec.encode({ msgId: 2, cid: undefined, sn: undefined, result: 0, data: undefined });
    expect(Array.from(reply as Uint8Array)).toEqual([0x82, ...key('msgId'), 0x02, ...key('result'), 0x00]);
    // Nested: a map entry is left out as well; an array element, which cannot be, is nil (JSON's null).
    const nested = msgpackCodec.encode({ msgId: 1, data: { a: undefined, b: [undefined, 1] } });
    expect(Array.from(nested as Uint8Array)).toEqual([0x82, ...key('msgId'), 0x01, ...key('data'), 0x81, ...key('b'), 0x92, 0xc0, 0x01]);
    const lenient = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
    fc.assert(
      fc.property(envelopeArb, fc.constantFrom('cid', 'flowId', 'sn', 'result', 'data', 'jsessionId'), (env, absent) => {
        const bytes = msgpackCodec.encode({ ...env, [absent]: undefined }) as Uint8Array;
        // msgpackr's default writes undefined as fixext 1 (d4 00 00) and reads it back as a present key.
        expect(lenient.unpack(bytes)).not.toHaveProperty(absent);
        expect(msgpackCodec.decode(bytes)).toEqual(JSON.parse(jsonCodec.encode({ ...env, [absent]: undefined }) as string));
      }),
      runs,
    );
  });

  it('CONN-4 a server answers msgpack, else JSON, of a version it speaks, passing over versions it does not', () => {
    expect(chooseSubprotocol(new Set([Subprotocol.Json, Subprotocol.Msgpack]))).toBe(Subprotocol.Msgpack);
    expect(chooseSubprotocol(new Set([Subprotocol.Json]))).toBe(Subprotocol.Json);
    expect(chooseSubprotocol(new Set(['mdm.v2.msgpack', Subprotocol.Json]))).toBe(Subprotocol.Json);
    expect(chooseSubprotocol(new Set(['mdm.v2.msgpack']))).toBe(false);
    expect(chooseSubprotocol(new Set())).toBe(false);
    for (const name of SERVER_SUBPROTOCOLS) expect(name).toMatch(/^mdm\.v\d+\.(json|msgpack)$/);
  });

  it('CHUNK-3 either codec reads a binary frame as a msgpack envelope and a text frame as JSON, whatever was negotiated', () => {
    const env = { msgId: 2, cid: 'h1' };
    for (const codec of [jsonCodec, msgpackCodec]) {
      expect(codec.decode(msgpackCodec.encode(env))).toEqual(env);
      expect(codec.decode(jsonCodec.encode(env))).toEqual(env);
    }
  });

  it('ENV-2 refuses envelopes with unknown fields or bad types', () => {
    expect(() => jsonCodec.decode('{"msgId":1,"extra":2}')).toThrow(DecodeError);
    expect(() => jsonCodec.decode('{"msgId":"1"}')).toThrow(DecodeError);
    expect(() => jsonCodec.decode('{"msgId":1,"result":9}')).toThrow(DecodeError);
    expect(() => jsonCodec.decode('[]')).toThrow(DecodeError);
  });
});

describe('nesting cap', () => {
  const key = (s: string) => [0xa0 + s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  // {msgId: 1, data: [[...[1]...]]} with `arrays` arrays, so the frame nests arrays + 1 levels. Written
  // by hand: encoders overflow the stack on such values before the decoder is ever reached.
  const jsonFrame = (arrays: number) => `{"msgId":1,"data":${'['.repeat(arrays)}1${']'.repeat(arrays)}}`;
  const msgpackFrame = (arrays: number) => new Uint8Array([0x82, ...key('msgId'), 0x01, ...key('data'), ...new Array<number>(arrays).fill(0x91), 0x01]);

  for (const [name, codec, frame] of [
    ['json', jsonCodec, jsonFrame],
    ['msgpack', msgpackCodec, msgpackFrame],
  ] as const) {
    it(`ENV-5 ${name}: accepts ${MAX_NESTING} levels and refuses one more with a decode error`, () => {
      const env = codec.decode(frame(MAX_NESTING - 1));
      expect(nestedDeeperThan(env, MAX_NESTING)).toBe(false);
      expect(nestedDeeperThan(env, MAX_NESTING - 1)).toBe(true);
      expect(() => codec.decode(frame(MAX_NESTING))).toThrow(new DecodeError(`Frame nested deeper than ${MAX_NESTING} levels`));
    });

    it(`ENV-5 ${name}: a frame nested 5,000 and 500,000 levels deep is a decode error, not a stack overflow`, () => {
      for (const depth of [5_000, 500_000]) {
        expect(() => codec.decode(frame(depth))).toThrow(new DecodeError(`Frame nested deeper than ${MAX_NESTING} levels`));
      }
    });
  }

  it('ENV-5 json: deep nesting inside a string is only text', () => {
    const text = '['.repeat(5_000);
    expect(jsonCodec.decode(`{"msgId":1,"data":"${text}"}`)).toEqual({ msgId: 1, data: text });
  });

  it('ENV-5 msgpack: the byte scan measures every value as deep as the decoded value is', () => {
    const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
    const leaf = fc.oneof(fc.jsonValue({ maxDepth: 0 }), fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 300 }), fc.double(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('tree'), { maxLength: 20 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('tree'), { maxKeys: 20 })),
    }));
    fc.assert(
      fc.property(tree, fc.integer({ min: 0, max: 8 }), (value, max) => {
        expect(msgpackNestedDeeperThan(packr.pack(value), max)).toBe(nestedDeeperThan(value, max));
      }),
      runs,
    );
  });
});
