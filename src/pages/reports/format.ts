// Display rules of the reports and dashboard (devices-and-commerce section 9): ratios as a percent with
// one decimal, bytes in 1024 units with three significant digits.

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** A ratio (0..1) as a percent with one decimal: 0.1234 -> "12.3%". Non-finite values show as "0.0%". */
export function formatRatio(ratio: number): string {
  return formatPercent(ratio * 100);
}

/** A value already in percent with one decimal: 12.345 -> "12.3%". */
export function formatPercent(percent: number): string {
  if (!Number.isFinite(percent)) return '0.0%';
  // toFixed rounds half away from zero on the decimal string for these magnitudes; -0 prints as 0.
  const fixed = (Math.round(percent * 10) / 10).toFixed(1);
  return `${fixed === '-0.0' ? '0.0' : fixed}%`;
}

/** Bytes in 1024 units with three significant digits: 1536 -> "1.50 KB", 0 -> "0 B", 1023 -> "1023 B". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 B';
  let unit = 0;
  let value = bytes;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  // Three significant digits cannot show 1000-1023 without an exponent ("1.02e+3"): those move to the
  // next unit (1000 KB -> "0.977 MB").
  if (Number(value.toPrecision(3)) >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toPrecision(3)} ${BYTE_UNITS[unit]}`;
}

/** The words of a duration in the reader's language ("{{h}} h {{m}} min", "{{h}} 小时 {{m}} 分钟"). */
export interface DurationUnits {
  readonly hoursMinutes: (h: number, m: string) => string;
  readonly minutes: (m: number) => string;
}

/** Milliseconds as hours and minutes, e.g. "2 h 05 min" or "12 min" (English units unless given others). */
export function formatDuration(ms: number, units: DurationUnits = { hoursMinutes: (h, m) => `${h} h ${m} min`, minutes: (m) => `${m} min` }): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? units.hoursMinutes(h, String(m).padStart(2, '0')) : units.minutes(m);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** yyyy-MM-dd HH:mm:ss in the viewer's zone (the spec's date-time format). */
export function formatDateTime(t: number): string {
  if (!t) return '';
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** yyyy-MM-dd in the viewer's zone. */
export function formatDate(t: number): string {
  return formatDateTime(t).slice(0, 10);
}
