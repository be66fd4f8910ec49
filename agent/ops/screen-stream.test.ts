import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessUnitSplitter, accessUnits } from '../simulator/video-source.ts';
import { screenStreamConfig } from './screen-stream.ts';

const clip = new Uint8Array(fs.readFileSync(new URL('../simulator/assets/main-320x240-30fps.h264', import.meta.url)));

describe('capture stream splitting (the agent reuses the simulator splitter)', () => {
  it('cuts an Annex-B stream arriving in arbitrary pieces into the same access units as the whole file', () => {
    const whole = accessUnits(clip).map((u) => [u.key, Buffer.from(u.bytes).toString('hex')]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: clip.length - 1 }), { maxLength: 40 }), (cuts) => {
        const splitter = new AccessUnitSplitter();
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const units = [];
        let from = 0;
        for (const at of [...points, clip.length]) {
          units.push(...splitter.push(clip.subarray(from, at)));
          from = at;
        }
        units.push(...splitter.end());
        expect(units.map((u) => [u.key, Buffer.from(u.bytes).toString('hex')])).toEqual(whole);
      }),
      { numRuns: 100 },
    );
  });

  it('lets a unit out only once the next one has begun, byte by byte too', () => {
    const splitter = new AccessUnitSplitter();
    let out = 0;
    for (let i = 0; i < 4000; i++) out += splitter.push(clip.subarray(i, i + 1)).length;
    const inFirst4000 = accessUnits(clip.subarray(0, 4000)).length;
    // Every complete unit is out, except the last one seen, which may still grow.
    expect(out).toBe(inFirst4000 - 1);
  });
});

describe('live view configuration', () => {
  it('reads the voice command and takes the camera rule as given; both off by default', () => {
    const log = () => undefined;
    const on = screenStreamConfig({ AGENT_STREAM_CMD: 'cap', AGENT_AUDIO_CMD: 'mic' }, log, true);
    expect(on).toMatchObject({ cmd: 'cap', audioCmd: 'mic', hasCamera: true });
    expect(screenStreamConfig({ AGENT_STREAM_CMD: 'cap', AGENT_AUDIO_CMD: '' }, log, false)).toMatchObject({ audioCmd: undefined, hasCamera: false });
  });
});
