import { describe, expect, it } from 'vitest';
import { parseStartStream } from './stream.ts';

describe('65565 StartStream request', () => {
  it('keeps requests written before cameras and voice valid: main, the screen, no voice', () => {
    expect(parseStartStream(undefined)).toEqual({ quality: 'main', camera: 'screen', audio: false });
    expect(parseStartStream({ quality: 'sub' })).toEqual({ quality: 'sub', camera: 'screen', audio: false });
  });

  it('takes a camera and a voice choice, and refuses anything else', () => {
    expect(parseStartStream({ quality: 'main', camera: 'front', audio: true })).toEqual({ quality: 'main', camera: 'front', audio: true });
    expect(parseStartStream({ camera: 'back' })).toEqual({ quality: 'main', camera: 'back', audio: false });
    for (const bad of [{ quality: 'hd' }, { camera: 'side' }, { camera: 1 }, { audio: 'yes' }]) expect(parseStartStream(bad)).toBeUndefined();
  });
});
