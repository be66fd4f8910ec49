import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { CAPTCHA_TTL_MS, CaptchaStore, keepCaptchaAnswersForTests, MAX_OPEN_PER_ADDRESS } from './captcha.ts';

keepCaptchaAnswersForTests();

describe('captcha store bounds', () => {
  it('lets no address evict another address’s challenge: a flood only replaces its own', () => {
    const store = new CaptchaStore(new FakeClock(), undefined, { maxOpen: 100 });
    const user = store.issue('198.51.100.7');
    if (!user) throw new Error('no challenge for the user');
    const answer = store.peekForTest(user.id) ?? '';
    // Far more than the store holds, all from one address (the report: 10,050 in 3.5 s).
    for (let i = 0; i < 1_000; i++) expect(store.issue('203.0.113.9')).toBeDefined();
    expect(store.openCount).toBe(1 + MAX_OPEN_PER_ADDRESS);
    expect(store.check(user.id, answer)).toBe(true);
  });

  it('refuses new challenges when full of other addresses’ open ones, and takes them again once those expire', () => {
    const clock = new FakeClock();
    const store = new CaptchaStore(clock, undefined, { maxOpen: 50, perAddress: 1 });
    const open = Array.from({ length: 50 }, (_, i) => store.issue(`2001:db8:${i.toString(16)}::1`));
    expect(open.every(Boolean)).toBe(true);
    expect(store.issue('198.51.100.7')).toBeUndefined();
    // Nobody's challenge was dropped to make room.
    const first = open[0];
    expect(first && store.check(first.id, store.peekForTest(first.id) ?? '')).toBe(true);
    expect(store.issue('198.51.100.7')).toBeDefined();
    clock.advance(CAPTCHA_TTL_MS + 1);
    expect(store.issue('198.51.100.8')).toBeDefined();
    expect(store.openCount).toBe(1);
  });

  it('keeps no answer in clear unless test support asked for it, and checks a wrong or forged id as false', () => {
    const store = new CaptchaStore(new FakeClock());
    const c = store.issue('198.51.100.7');
    if (!c) throw new Error('no challenge');
    const [lookup, key] = c.id.split('.');
    expect(store.check(`${lookup}.${'A'.repeat(22)}`, store.peekForTest(c.id) ?? '')).toBe(false);
    // The forged key spent the challenge.
    expect(store.check(c.id, store.peekForTest(c.id) ?? '')).toBe(false);
    expect(key).toHaveLength(22);
    expect(store.check('not-an-id', 'abcde')).toBe(false);
  });

  it('draws a GIF with a five-letter code, different pixels for each challenge', () => {
    const store = new CaptchaStore(new FakeClock());
    const a = store.issue('198.51.100.7');
    const b = store.issue('198.51.100.7');
    expect(a?.gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(a?.gif.equals(b?.gif ?? Buffer.alloc(0))).toBe(false);
    expect(store.peekForTest(a?.id ?? '')).toMatch(/^[a-z]{5}$/);
  });
});
