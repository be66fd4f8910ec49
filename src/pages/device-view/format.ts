/** Bytes in the largest unit that keeps the number readable (1 decimal). */
export function formatBytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** Seconds as days, hours and minutes. */
export function formatUptime(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3_600);
  const m = Math.floor((seconds % 3_600) / 60);
  return `${d ? `${d}d ` : ''}${h}h ${m}m`;
}
