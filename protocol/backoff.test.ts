import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF, MAX_RETRY_AFTER_MS, retryAfterOf, returnDelay } from './backoff.ts';

describe('backoff', () => {
  it('LIFE-2 stays within [2 s, 30 s] for any attempt and any random draw', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const d = backoffDelay(attempt, DEFAULT_BACKOFF, () => r);
        expect(d).toBeGreaterThanOrEqual(2_000);
        expect(d).toBeLessThanOrEqual(30_000);
      }),
      { numRuns: 1000 },
    );
  });

  it('LIFE-2 window ceilings double from 4 s up to the 30 s cap without jitter', () => {
    const noJitter = { ...DEFAULT_BACKOFF, jitter: 0 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, noJitter, () => 0.5))).toEqual([4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('LIFE-2 full jitter spreads a first reconnect over its whole window, not at one instant', () => {
    // A fleet dropped at once: the draws are spread evenly, so the returning devices are too.
    const draws = Array.from({ length: 1_000 }, (_, k) => backoffDelay(0, DEFAULT_BACKOFF, () => k / 1_000));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(2_000);
    expect(Math.max(...draws)).toBe(4_000);
    const perHalfSecond = [0, 1, 2, 3].map((q) => draws.filter((d) => d >= 2_000 + q * 500 && d < 2_500 + q * 500).length);
    for (const n of perHalfSecond) expect(n).toBeGreaterThanOrEqual(240);
  });

  it('LIFE-2 a return is read only from a 503\'s Retry-After in whole seconds', () => {
    expect(retryAfterOf(503, '7')).toBe(7_000);
    expect(retryAfterOf(503, ' 0 ')).toBe(0);
    expect(retryAfterOf(429, '7')).toBeUndefined();
    expect(retryAfterOf(503, undefined)).toBeUndefined();
    expect(retryAfterOf(503, 'Wed, 21 Oct 2026 07:28:00 GMT')).toBeUndefined();
    expect(retryAfterOf(503, ['1', '2'])).toBeUndefined();
    expect(retryAfterOf(503, '-3')).toBeUndefined();
  });

  it('LIFE-2 a return is kept within [0, 5 min] plus up to a second of jitter, for any header and draw', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (ms, r) => {
        const d = returnDelay(ms, () => r);
        expect(d).toBeGreaterThanOrEqual(Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS));
        expect(d).toBeLessThanOrEqual(Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) + 1_000);
      }),
    );
  });
});
