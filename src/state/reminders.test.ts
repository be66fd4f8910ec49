import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, expiryTone, expiryWarningDue, passwordReminderDue } from './reminders.ts';

const now = Date.UTC(2026, 10, 22);

describe('reminders', () => {
  it('password: due only after more than 30 days', () => {
    expect(passwordReminderDue(now - 30 * DAY_MS, now)).toBe(false);
    expect(passwordReminderDue(now - 30 * DAY_MS - 1, now)).toBe(true);
    expect(passwordReminderDue(now, now)).toBe(false);
  });

  it('expiry: expired or within 30 days, never for customer type 1, at most once a day', () => {
    expect(expiryWarningDue(now + 29 * DAY_MS, 2, now, false)).toBe(true);
    expect(expiryWarningDue(now - DAY_MS, 2, now, false)).toBe(true);
    expect(expiryWarningDue(now + 31 * DAY_MS, 2, now, false)).toBe(false);
    expect(expiryWarningDue(now + DAY_MS, 1, now, false)).toBe(false);
    expect(expiryWarningDue(now + DAY_MS, 2, now, true)).toBe(false);
    expect(expiryWarningDue(null, 2, now, false)).toBe(false);
  });

  it('expiry: for any account, customer type 1 or an earlier reminder today means no warning', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 2 * now })), fc.integer({ min: 1, max: 5 }), fc.boolean(), (expire, type, reminded) => {
        const due = expiryWarningDue(expire, type, now, reminded);
        if (type === 1 || reminded || expire === null) expect(due).toBe(false);
        else expect(due).toBe(expire - now <= 30 * DAY_MS);
      }),
      { numRuns: 1000 },
    );
  });

  it('top bar expiry tone: none without expiry, expired at or past it, soon within 30 days', () => {
    expect(expiryTone(null, now)).toBeUndefined();
    expect(expiryTone(now, now)).toBe('expired');
    expect(expiryTone(now + 30 * DAY_MS, now)).toBe('soon');
    expect(expiryTone(now + 30 * DAY_MS + 1, now)).toBe('later');
  });
});
