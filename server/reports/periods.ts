// Pure period arithmetic for the reports: statistic periods DATE / WEEK / MONTH / YEAR in a time zone, and
// the spec's age buckets (devices-and-commerce section 9). No I/O; tested with fast-check.

import type { AgeBucket, Period, PeriodBucket } from '../../protocol/api/reports.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;


// A month is 30 days and a year 365 for these buckets: they classify durations, not calendar dates.
const AGE_LOWER_BOUNDS: readonly [AgeBucket, number][] = [
  ['ge1y', 365 * DAY_MS],
  ['ge3m', 90 * DAY_MS],
  ['ge1m', 30 * DAY_MS],
  ['ge1w', 7 * DAY_MS],
];

/** The bucket of a duration: each duration falls in exactly one (the longest threshold it reaches). */
export function ageBucket(durationMs: number): AgeBucket {
  for (const [bucket, min] of AGE_LOWER_BOUNDS) if (durationMs >= min) return bucket;
  return 'lt1w';
}

/** Counts of durations per age bucket, every bucket present. */
export function ageBucketCounts(durationsMs: Iterable<number>): Record<AgeBucket, number> {
  const out: Record<AgeBucket, number> = { lt1w: 0, ge1w: 0, ge1m: 0, ge3m: 0, ge1y: 0 };
  for (const d of durationsMs) out[ageBucket(d)]++;
  return out;
}

/** True when `tz` is a time zone this runtime knows (IANA name or UTC). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(tz, f);
  }
  return f;
}

interface LocalParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** Wall-clock fields of instant `t` in `tz`. */
export function localParts(t: number, tz: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(t)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year ?? 0, month: parts.month ?? 1, day: parts.day ?? 1, hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0 };
}

/** Offset of `tz` from UTC at instant `t`, in ms (positive east of Greenwich). */
function offsetAt(t: number, tz: string): number {
  const p = localParts(t, tz);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(t / 1000) * 1000;
}

/**
 * The instant at which the wall clock of `tz` shows `wallMs` (a UTC-encoded wall time). When that wall
 * time does not exist (a DST gap) this is the first instant after the gap.
 */
function instantOfWall(wallMs: number, tz: string): number {
  const first = wallMs - offsetAt(wallMs, tz);
  const second = wallMs - offsetAt(first, tz);
  if (first === second) return first;
  // Around a transition the two guesses differ; the earlier one that shows a wall time at or after the
  // target is the start of the local day.
  const [a, b] = first < second ? [first, second] : [second, first];
  return wallOf(a, tz) >= wallMs ? a : b;
}

function wallOf(t: number, tz: string): number {
  return t + offsetAt(t, tz);
}

/** Monday-first day of the week, 0 Monday .. 6 Sunday, of a UTC-encoded wall date. */
function mondayIndex(wallMs: number): number {
  return (new Date(wallMs).getUTCDay() + 6) % 7;
}

/** UTC-encoded wall time at which the period containing local wall date y-m-d begins, and the next one. */
function wallBounds(p: LocalParts, period: Period): [number, number] {
  switch (period) {
    case 'DATE':
      return [Date.UTC(p.year, p.month - 1, p.day), Date.UTC(p.year, p.month - 1, p.day + 1)];
    case 'WEEK': {
      const day = Date.UTC(p.year, p.month - 1, p.day);
      const start = day - mondayIndex(day) * DAY_MS;
      const s = new Date(start);
      return [start, Date.UTC(s.getUTCFullYear(), s.getUTCMonth(), s.getUTCDate() + 7)];
    }
    case 'MONTH':
      return [Date.UTC(p.year, p.month - 1, 1), Date.UTC(p.year, p.month, 1)];
    case 'YEAR':
      return [Date.UTC(p.year, 0, 1), Date.UTC(p.year + 1, 0, 1)];
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function keyOfWall(wallMs: number, period: Period): string {
  const d = new Date(wallMs);
  const y = pad(d.getUTCFullYear(), 4);
  if (period === 'YEAR') return y;
  if (period === 'MONTH') return `${y}-${pad(d.getUTCMonth() + 1)}`;
  return `${y}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** The period of `period` kind containing instant `t` in time zone `tz`. */
export function periodOf(t: number, period: Period, tz: string): PeriodBucket {
  const [ws, we] = wallBounds(localParts(t, tz), period);
  return { key: keyOfWall(ws, period), start: instantOfWall(ws, tz), end: instantOfWall(we, tz) };
}

/** The consecutive periods covering [from, to), in order; at most `limit` (a guard against huge ranges). */
export function periodsBetween(from: number, to: number, period: Period, tz: string, limit = 1_000): PeriodBucket[] {
  const out: PeriodBucket[] = [];
  let t = from;
  while (t < to && out.length < limit) {
    const b = periodOf(t, period, tz);
    out.push(b);
    // end > t always: a period is at least 23 hours long.
    t = b.end;
  }
  return out;
}

/**
 * Counts timestamped items per period over [from, to): items outside are ignored, every period of the
 * range is present (zero when empty). Items may be pre-counted (weight) as hourly rollups are.
 */
export function countByPeriod<T>(
  items: Iterable<T>,
  timeOf: (item: T) => number,
  range: { from: number; to: number; period: Period; tz: string },
  weightOf: (item: T) => number = () => 1,
): { buckets: PeriodBucket[]; counts: number[] } {
  const buckets = periodsBetween(range.from, range.to, range.period, range.tz);
  const counts = buckets.map(() => 0);
  // The periods tile [from, to) in order, so an item's period is found by binary search on the starts:
  // no time-zone arithmetic per item, which matters for hundreds of thousands of rows.
  for (const item of items) {
    const t = timeOf(item);
    if (t < range.from || t >= range.to) continue;
    let lo = 0;
    let hi = buckets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((buckets[mid] as PeriodBucket).start <= t) lo = mid;
      else hi = mid - 1;
    }
    counts[lo] = (counts[lo] ?? 0) + weightOf(item);
  }
  return { buckets, counts };
}

/** Hours of [start, end) that fall inside [from, min(to, now)); the denominator of an online rate. */
export function coveredHours(bucket: { start: number; end: number }, range: { from: number; to: number }, now: number): number {
  const lo = Math.max(bucket.start, range.from);
  const hi = Math.min(bucket.end, range.to, now);
  return hi > lo ? (hi - lo) / HOUR_MS : 0;
}

/** A ratio as a percent, clamped to 0-100 and 0 when the denominator is 0. */
export function rate(part: number, whole: number): number {
  if (!(whole > 0)) return 0;
  return Math.min(100, Math.max(0, (part / whole) * 100));
}
