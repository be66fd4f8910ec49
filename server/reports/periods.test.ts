import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGE_BUCKETS, PERIODS } from '../../protocol/api/reports.ts';
import { ageBucket, ageBucketCounts, countByPeriod, DAY_MS, localParts, periodOf, periodsBetween } from './periods.ts';

// Zones with DST in both hemispheres, half-hour and 45-minute offsets, and a 30-minute DST shift.
const ZONES = ['UTC', 'Asia/Shanghai', 'America/New_York', 'Europe/London', 'Asia/Kolkata', 'Australia/Sydney', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham'];
const zone = fc.constantFrom(...ZONES);
const period = fc.constantFrom(...PERIODS);
// 2000-01-01 .. 2040-01-01
const instant = fc.integer({ min: 946_684_800_000, max: 2_208_988_800_000 });

describe('statistic periods in a time zone', () => {
  it('a period contains its instant, starts at local midnight and is labelled by its local start', () => {
    fc.assert(
      fc.property(instant, period, zone, (t, p, tz) => {
        const b = periodOf(t, p, tz);
        expect(b.start).toBeLessThanOrEqual(t);
        expect(b.end).toBeGreaterThan(t);
        const s = localParts(b.start, tz);
        // Local midnight, or the first instant after a DST gap that swallowed midnight.
        expect(s.minute === 0 && s.second === 0 && s.hour <= 1).toBe(true);
        expect(periodOf(b.start, p, tz).key).toBe(b.key);
        expect(periodOf(b.end - 1, p, tz).key).toBe(b.key);
        expect(periodOf(b.end, p, tz).key).not.toBe(b.key);
        if (p === 'MONTH') expect(s.day).toBe(1);
        if (p === 'YEAR') expect([s.month, s.day]).toEqual([1, 1]);
        if (p === 'WEEK') expect(new Date(Date.UTC(s.year, s.month - 1, s.day)).getUTCDay()).toBe(1);
        const days = (b.end - b.start) / DAY_MS;
        const expected = { DATE: [22 / 24, 26 / 24], WEEK: [6.9, 7.1], MONTH: [27.9, 31.1], YEAR: [364.9, 366.1] }[p];
        expect(days).toBeGreaterThanOrEqual(expected[0] as number);
        expect(days).toBeLessThanOrEqual(expected[1] as number);
      }),
      { numRuns: 400 },
    );
  });

  it('consecutive periods tile the range without gaps or overlaps', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: 1, max: 120 * DAY_MS }), period, zone, (from, span, p, tz) => {
        const buckets = periodsBetween(from, from + span, p, tz);
        expect(buckets[0]?.start).toBeLessThanOrEqual(from);
        expect(buckets.at(-1)?.end).toBeGreaterThanOrEqual(from + span);
        for (let i = 1; i < buckets.length; i++) expect(buckets[i]?.start).toBe(buckets[i - 1]?.end);
      }),
      { numRuns: 200 },
    );
  });

  it('bucket totals equal the raw count of events in range, and each event lands in the period that contains it', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: 1, max: 60 * DAY_MS }), fc.array(fc.integer({ min: -10 * DAY_MS, max: 70 * DAY_MS }), { maxLength: 200 }), period, zone, (from, span, offsets, p, tz) => {
        const to = from + span;
        const events = offsets.map((o) => from + o);
        const { buckets, counts } = countByPeriod(events, (t) => t, { from, to, period: p, tz });
        const inRange = events.filter((t) => t >= from && t < to);
        expect(counts.reduce((a, b) => a + b, 0)).toBe(inRange.length);
        buckets.forEach((b, i) => expect(counts[i]).toBe(inRange.filter((t) => t >= b.start && t < b.end).length));
      }),
      { numRuns: 200 },
    );
  });

  it('the same instant is in different days in Shanghai and New York when their dates differ', () => {
    // 2026-03-01 02:00 UTC is 10:00 on 1 March in Shanghai and 21:00 on 28 February in New York.
    const t = Date.UTC(2026, 2, 1, 2);
    expect(periodOf(t, 'DATE', 'Asia/Shanghai').key).toBe('2026-03-01');
    expect(periodOf(t, 'DATE', 'America/New_York').key).toBe('2026-02-28');
    expect(periodOf(t, 'MONTH', 'America/New_York').key).toBe('2026-02');
    // The New York day of the spring-forward change is 23 hours long.
    const dst = periodOf(Date.UTC(2026, 2, 8, 12), 'DATE', 'America/New_York');
    expect((dst.end - dst.start) / 3_600_000).toBe(23);
  });
});

describe('age buckets', () => {
  it('every duration falls in exactly one bucket and the counts add up', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 800 * DAY_MS })), (durations) => {
        const counts = ageBucketCounts(durations);
        expect(AGE_BUCKETS.reduce((n, b) => n + counts[b], 0)).toBe(durations.length);
      }),
    );
  });

  it('uses the thresholds 1 week, 1 month, 3 months and 1 year', () => {
    expect(ageBucket(7 * DAY_MS - 1)).toBe('lt1w');
    expect(ageBucket(7 * DAY_MS)).toBe('ge1w');
    expect(ageBucket(30 * DAY_MS)).toBe('ge1m');
    expect(ageBucket(90 * DAY_MS)).toBe('ge3m');
    expect(ageBucket(365 * DAY_MS)).toBe('ge1y');
  });
});
