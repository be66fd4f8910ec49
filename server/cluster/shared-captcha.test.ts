import { describe, expect, it } from 'vitest';
import { systemClock } from '../../protocol/index.ts';
import { CaptchaStore } from '../auth/captcha.ts';
import { BusRelay } from '../bus/ipc-bus.ts';

describe('captcha challenges across the worker processes of a node', () => {
  it('are answered on another worker than the one that drew the image, once', () => {
    // The relay's own bus stands for two workers' buses: delivery is the same, only synchronous.
    const bus = new BusRelay().bus;
    const drew = new CaptchaStore(systemClock, bus);
    const answers = new CaptchaStore(systemClock, bus);
    const { id } = drew.issue();
    const text = drew.peekForTest(id) ?? '';
    expect(answers.check(id, text.toUpperCase())).toBe(true);
    expect(drew.check(id, text)).toBe(false);
    expect(answers.check(id, text)).toBe(false);
  });
});
