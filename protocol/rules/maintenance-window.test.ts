import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { campaignWait, type MaintenanceWindow, nextOpening, windowOpen, windowProblem } from './maintenance-window.ts';

// 2026-11-25 is a Wednesday (day 3).
const at = (iso: string) => Date.parse(iso);
const nightly: MaintenanceWindow = { days: [1, 2, 3, 4, 5], from: '22:00', to: '06:00', timeZone: 'Asia/Shanghai' };
const office: MaintenanceWindow = { days: [3], from: '09:30', to: '17:00', timeZone: 'Europe/London' };

describe('maintenance windows', () => {
  it('opens on the chosen days between the times, in the window\'s own zone', () => {
    expect(windowOpen(office, at('2026-11-25T09:30:00Z'))).toBe(true);
    expect(windowOpen(office, at('2026-11-25T09:29:00Z'))).toBe(false);
    expect(windowOpen(office, at('2026-11-25T17:00:00Z'))).toBe(false);
    // Thursday is not a chosen day.
    expect(windowOpen(office, at('2026-11-26T12:00:00Z'))).toBe(false);
  });

  it('runs overnight when the end is before the start: Friday 22:00 to Saturday 06:00, not Saturday night', () => {
    // Shanghai is UTC+8: Friday 22:30 there is 14:30 UTC.
    expect(windowOpen(nightly, at('2026-11-27T14:30:00Z'))).toBe(true);
    // Saturday 05:59 Shanghai: still Friday's night.
    expect(windowOpen(nightly, at('2026-11-27T21:59:00Z'))).toBe(true);
    // Saturday 22:30 Shanghai: Saturday is not chosen.
    expect(windowOpen(nightly, at('2026-11-28T14:30:00Z'))).toBe(false);
    // Monday 05:00 Shanghai: Sunday night was not chosen either.
    expect(windowOpen(nightly, at('2026-11-29T21:00:00Z'))).toBe(false);
  });

  it('finds the next opening, and it is open there and closed the minute before', () => {
    fc.assert(
      fc.property(fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2027-01-01T00:00:00Z') }), fc.constantFrom(nightly, office, { days: [0, 6], from: '10:15', to: '10:45', timeZone: 'Asia/Kolkata' } satisfies MaintenanceWindow), (now, w) => {
        const next = nextOpening(w, now);
        expect(next).toBeDefined();
        if (next === undefined) return;
        expect(next).toBeGreaterThanOrEqual(now);
        expect(windowOpen(w, next)).toBe(true);
        if (next > now) expect(windowOpen(w, next - 60_000)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('finds an opening just after midnight when asked in the evening (the hour searched spans midnight)', () => {
    // Every day 00:22 to 01:22 UTC, asked on Friday at 22:22:30: Saturday 00:22, not "never".
    const early: MaintenanceWindow = { days: [0, 1, 2, 3, 4, 5, 6], from: '00:22', to: '01:22', timeZone: 'UTC' };
    expect(nextOpening(early, at('2026-11-27T22:22:30Z'))).toBe(at('2026-11-28T00:22:00Z'));
  });

  it('finds the first open minute of any window, in zones with and without daylight saving', () => {
    const minute = fc.integer({ min: 0, max: 1_439 }).map((m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
    const windows = fc
      .record({
        days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
        from: minute,
        to: minute,
        timeZone: fc.constantFrom('UTC', 'Asia/Shanghai', 'Europe/London', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'),
      })
      .filter((w) => w.from !== w.to);
    fc.assert(
      fc.property(fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2027-01-01T00:00:00Z') }), windows, (now, w) => {
        const next = nextOpening(w, now);
        expect(next).toBeDefined();
        if (next === undefined || next === now) return;
        expect(windowOpen(w, next)).toBe(true);
        // No minute before it, from the asking minute on, is open.
        for (let m = Math.floor(now / 60_000) * 60_000; m < next; m += 60_000) expect(windowOpen(w, m)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('tells what a campaign waits for: its start time, then its window', () => {
    const now = at('2026-11-26T12:00:00Z');
    expect(campaignWait(now + 60_000, null, now)).toBe('scheduled');
    expect(campaignWait(null, office, now)).toBe('outsideWindow');
    expect(campaignWait(now - 1, null, now)).toBeUndefined();
    expect(campaignWait(null, { ...office, days: [4] }, now)).toBeUndefined();
  });

  it('refuses windows without days, with equal or malformed times, or an unknown zone', () => {
    expect(windowProblem(office)).toBeUndefined();
    expect(windowProblem({ ...office, days: [] })).toBe('push.windowDays');
    expect(windowProblem({ ...office, days: [1, 1] })).toBe('push.windowDays');
    expect(windowProblem({ ...office, to: '09:30' })).toBe('push.windowTimes');
    expect(windowProblem({ ...office, from: '24:00' })).toBe('push.windowTimes');
    expect(windowProblem({ ...office, timeZone: 'Mars/Olympus' })).toBe('push.windowZone');
  });
});
