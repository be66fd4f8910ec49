const pad = (n: number) => String(n).padStart(2, '0');

/** yyyy-MM-dd HH:mm:ss in local time, or '' for no time (platform-core section 9). */
export function formatDateTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
