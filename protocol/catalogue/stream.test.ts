import { describe, expect, it } from 'vitest';
import { LONG_PRESS_MIN_MS, MAX_CONTROL_TEXT, MAX_SCROLL_STEPS, parseRemoteControl, parseStartStream } from './stream.ts';

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

describe('65568 RemoteControl request', () => {
  it('takes text, scroll, long press and clipboard beside tap, swipe and key', () => {
    expect(parseRemoteControl({ action: 'text', text: 'héllo 你好' })).toEqual({ action: 'text', text: 'héllo 你好' });
    expect(parseRemoteControl({ action: 'scroll', x: 0.5, y: 0.5, dx: 0, dy: -3 })).toEqual({ action: 'scroll', x: 0.5, y: 0.5, dx: 0, dy: -3 });
    expect(parseRemoteControl({ action: 'longPress', x: 0.1, y: 0.9, durationMs: 800 })).toEqual({ action: 'longPress', x: 0.1, y: 0.9, durationMs: 800 });
    expect(parseRemoteControl({ action: 'clipboard', text: 'copied' })).toEqual({ action: 'clipboard', text: 'copied' });
    expect(parseRemoteControl({ action: 'clipboard' })).toEqual({ action: 'clipboard' });
    expect(parseRemoteControl({ action: 'tap', x: 0, y: 1 })).toEqual({ action: 'tap', x: 0, y: 1 });
  });

  it('refuses empty or long text, zero or large scrolls, short presses and malformed clipboards', () => {
    for (const bad of [
      { action: 'text', text: '' },
      { action: 'text', text: 'x'.repeat(MAX_CONTROL_TEXT + 1) },
      { action: 'scroll', x: 0.5, y: 0.5, dx: 0, dy: 0 },
      { action: 'scroll', x: 0.5, y: 0.5, dx: 0, dy: MAX_SCROLL_STEPS + 1 },
      { action: 'scroll', x: 0.5, y: 0.5, dx: 0.5, dy: 1 },
      { action: 'longPress', x: 0.5, y: 0.5, durationMs: LONG_PRESS_MIN_MS - 1 },
      { action: 'longPress', x: 2, y: 0.5, durationMs: 800 },
      { action: 'clipboard', text: 5 },
    ]) expect(parseRemoteControl(bad)).toBeUndefined();
  });
});
