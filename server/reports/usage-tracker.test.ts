import { describe, expect, it } from 'vitest';
import { activeGap, IDLE_CUTOFF_MS } from './usage-tracker.ts';

describe('active time of a console session', () => {
  it('adds the gap between requests up to the 30-minute idle cut-off, and nothing for the first request', () => {
    expect(activeGap(undefined, 1_000)).toBe(0);
    expect(activeGap(1_000, 61_000)).toBe(60_000);
    expect(activeGap(0, IDLE_CUTOFF_MS)).toBe(IDLE_CUTOFF_MS);
    expect(activeGap(0, IDLE_CUTOFF_MS + 1)).toBe(0);
    expect(activeGap(5_000, 4_000)).toBe(0);
  });
});
