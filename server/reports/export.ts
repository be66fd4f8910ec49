import ExcelJS from 'exceljs';
import type { ExportFormat } from '../../protocol/api/reports.ts';

/** One column of an exported table: its header text and how to read a row's cell. */
export interface ExportColumn<T> {
  readonly header: string;
  readonly value: (row: T) => string | number;
}

// Exports are bounded so one click cannot build a file of millions of rows in memory.
export const MAX_EXPORT_ROWS = 100_000;


export interface ExportFile {
  readonly body: Buffer;
  readonly contentType: string;
  readonly fileName: string;
}

// Cells starting with these are formulas to a spreadsheet; prefixing a quote keeps exported device
// names and details from running as formulas when the CSV is opened (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const safe = FORMULA_START.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** RFC 4180 CSV with a UTF-8 BOM, so spreadsheet programs read Chinese headers correctly. */
export function toCsv<T>(columns: readonly ExportColumn<T>[], rows: readonly T[]): Buffer {
  const lines = [columns.map((c) => csvCell(c.header)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(c.value(row))).join(','));
  return Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`, 'utf8');
}

/** An XLSX workbook with one sheet: a bold header row and one row per item. */
export async function toXlsx<T>(sheetName: string, columns: readonly ExportColumn<T>[], rows: readonly T[]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet(sheetName.slice(0, 31));
  sheet.addRow(columns.map((c) => c.header)).font = { bold: true };
  for (const row of rows) sheet.addRow(columns.map((c) => c.value(row)));
  sheet.columns.forEach((col, i) => {
    col.width = Math.min(40, Math.max(10, (columns[i]?.header.length ?? 10) + 4));
  });
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** The table in the requested format, named `<name>-<yyyyMMdd>.<ext>`. */
export async function exportTable<T>(format: ExportFormat, name: string, columns: readonly ExportColumn<T>[], rows: readonly T[], now: number): Promise<ExportFile> {
  const stamp = new Date(now).toISOString().slice(0, 10).replace(/-/g, '');
  if (format === 'csv') return { body: toCsv(columns, rows), contentType: 'text/csv; charset=utf-8', fileName: `${name}-${stamp}.csv` };
  return {
    body: await toXlsx(name, columns, rows),
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    fileName: `${name}-${stamp}.xlsx`,
  };
}

/** Reads back the first sheet of an XLSX file as rows of cell values (tests and round-trip checks). */
export async function readXlsx(body: Buffer | ArrayBuffer): Promise<(string | number)[][]> {
  const book = new ExcelJS.Workbook();
  const bytes = body instanceof ArrayBuffer ? body : (body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
  await book.xlsx.load(bytes as ExcelJS.Buffer);
  const sheet = book.worksheets[0];
  const out: (string | number)[][] = [];
  sheet?.eachRow((row) => {
    const values = (row.values as unknown[]).slice(1);
    out.push(values.map((v) => (typeof v === 'number' ? v : String(v ?? ''))));
  });
  return out;
}
