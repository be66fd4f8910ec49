/** One CSV field: quoted when it holds a comma, quote or line break, quotes doubled (RFC 4180). */
function field(value: string | number): string {
  const s = String(value);
  // A leading =, +, - or @ would be read as a formula by spreadsheets: prefixed with a quote mark.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A table as CSV text (CRLF lines, a BOM so spreadsheets read it as UTF-8 with Chinese headers). */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return `\uFEFF${[header, ...rows].map((r) => r.map(field).join(',')).join('\r\n')}\r\n`;
}
