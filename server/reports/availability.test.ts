import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from './periods.ts';
import { availableDeviceHours } from './repository.ts';

describe('device-hours available to the online rate', () => {
  it('a fleet present all along has devices x elapsed hours, split over the periods', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }), fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 24 * 40 }), (from, devices, hours) => {
        const to = from + hours * HOUR_MS;
        const counts = availableDeviceHours([], devices, { from, to, now: to, period: 'DATE', tz: 'Asia/Shanghai' });
        expect(counts.reduce((a, b) => a + b, 0)).toBeCloseTo(devices * hours, 6);
      }),
      { numRuns: 100 },
    );
  });

  it('a device enrolled during the range counts from its enrolment hour only', () => {
    const from = Date.UTC(2026, 0, 1);
    const q = { from, to: from + 2 * 24 * HOUR_MS, now: from + 2 * 24 * HOUR_MS, period: 'DATE' as const, tz: 'UTC' };
    // Two devices: one there all along, one enrolled at 12:00 on the second day.
    const counts = availableDeviceHours([{ hour: from + 36 * HOUR_MS, n: 1 }], 2, q);
    expect(counts).toEqual([24, 24 + 12]);
  });
});
