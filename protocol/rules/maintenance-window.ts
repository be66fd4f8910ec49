/*
 * Maintenance windows (issue 23): a campaign dispatches only inside its window — chosen days of the week
 * and a time of day, in a time zone — and waits outside it. Pure functions over epoch ms, shared by the
 * campaign runner (when to dispatch), the push calls (what the campaign is waiting for) and the console
 * (what the dialog and the campaign card say).
 */

/** A recurring window: on `days` (0 Sunday .. 6 Saturday), from `from` to `to` ('HH:mm', 24 h) in `timeZone`. */
export interface MaintenanceWindow {
  readonly days: readonly number[];
  readonly from: string;
  readonly to: string;
  readonly timeZone: string;
}

/** What a running campaign waits for, if anything. */
export type CampaignWait = 'scheduled' | 'outsideWindow';

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const WEEKDAYS: Readonly<Record<string, number>> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

/** True when `zone` is an IANA time zone this runtime knows. */
export function isTimeZoneName(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Minutes since midnight of 'HH:mm', or undefined when it is not one. */
export function minutesOf(hhmm: string): number | undefined {
  const m = HH_MM.exec(hhmm);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/** Why a window is not usable, as a message key of the catalogue; undefined when it is. */
export function windowProblem(w: MaintenanceWindow): 'push.windowDays' | 'push.windowTimes' | 'push.windowZone' | undefined {
  if (w.days.length === 0 || w.days.some((d) => !Number.isInteger(d) || d < 0 || d > 6) || new Set(w.days).size !== w.days.length) return 'push.windowDays';
  const from = minutesOf(w.from);
  const to = minutesOf(w.to);
  if (from === undefined || to === undefined || from === to) return 'push.windowTimes';
  if (!isTimeZoneName(w.timeZone)) return 'push.windowZone';
  return undefined;
}

/** True when `value` is a usable window (from stored JSON, say). */
export function isMaintenanceWindow(value: unknown): value is MaintenanceWindow {
  if (typeof value !== 'object' || value === null) return false;
  const { days, from, to, timeZone } = value as Record<string, unknown>;
  return Array.isArray(days) && days.every((d) => typeof d === 'number') && typeof from === 'string' && typeof to === 'string' && typeof timeZone === 'string' && windowProblem({ days, from, to, timeZone }) === undefined;
}

/** A window stored as JSON ('' for none), or null when there is none or it is not usable. */
export function parseWindow(json: string): MaintenanceWindow | null {
  if (!json) return null;
  try {
    const w: unknown = JSON.parse(json);
    return isMaintenanceWindow(w) ? w : null;
  } catch {
    return null;
  }
}

/** Weekday (0-6) and minute of the day of `at` in `zone`. */
function localTime(at: number, zone: string): { day: number; minute: number } {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, f);
  }
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of f.formatToParts(at)) {
    if (part.type === 'weekday') day = WEEKDAYS[part.value] ?? 0;
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { day, minute: hour * 60 + minute };
}

/**
 * True when `at` falls inside the window. A window whose end is before its start runs overnight: it
 * opens on a chosen day at `from` and closes at `to` the next morning.
 */
export function windowOpen(w: MaintenanceWindow, at: number): boolean {
  const from = minutesOf(w.from) ?? 0;
  const to = minutesOf(w.to) ?? 0;
  const { day, minute } = localTime(at, w.timeZone);
  if (from < to) return w.days.includes(day) && minute >= from && minute < to;
  return (w.days.includes(day) && minute >= from) || (w.days.includes((day + 6) % 7) && minute < to);
}

const STEP_MS = 60_000;
const HOUR_MS = 60 * STEP_MS;
const DAY_MINUTES = 1_440;
const HORIZON_MS = 8 * 86_400_000;

/** The first minute at or after `at` when the window is open (undefined when it never opens within 8 days). */
export function nextOpening(w: MaintenanceWindow, at: number): number | undefined {
  if (windowOpen(w, at)) return at;
  // Outside the window, it next opens when the local time of day reaches `from` (the day turning at
  // midnight never opens it: an overnight window open after midnight was open before it). Each hour step
  // covers the sixty local minutes from its start, so the minute that reads `from` is found in the hour
  // holding it, counted round the clock: the hour from 23:23 holds 00:22. An hour in which the zone's
  // offset changes skips or repeats local minutes, so there each minute is looked at.
  const from = minutesOf(w.from) ?? 0;
  const start = Math.ceil(at / STEP_MS) * STEP_MS;
  // The end of one hour is the start of the next: its local minute is carried, not read again.
  let next = localTime(start, w.timeZone).minute;
  for (let t = start; t < start + HORIZON_MS; t += HOUR_MS) {
    const minute = next;
    next = localTime(t + HOUR_MS, w.timeZone).minute;
    if ((next - minute + DAY_MINUTES) % DAY_MINUTES !== 60) {
      for (let u = t; u < t + HOUR_MS; u += STEP_MS) if (windowOpen(w, u)) return u;
      continue;
    }
    const delta = (from - minute + DAY_MINUTES) % DAY_MINUTES;
    if (delta >= 60) continue;
    const candidate = t + delta * STEP_MS;
    if (windowOpen(w, candidate)) return candidate;
  }
  return undefined;
}

/** What a running campaign with this schedule waits for at `now`, if anything. */
export function campaignWait(startAt: number | null, window: MaintenanceWindow | null, now: number): CampaignWait | undefined {
  if (startAt !== null && startAt > now) return 'scheduled';
  if (window && !windowOpen(window, now)) return 'outsideWindow';
  return undefined;
}
