import type { AbnormalFilter, AbnormalReport, DashboardView, ExportFormat, LocationReport, MapReport, MultiModelReport, OperationLogEntry, ReportFilter, UsageReport } from '../../protocol/api/reports.ts';
import type { OperationLogFilter } from '../../protocol/api/audit.ts';
import type { Page } from '../../protocol/api/devices.ts';
import { queryString, request, serverMessage } from './request.ts';
import { session } from '../state/session.ts';

export type { AbnormalFilter, AbnormalReport, ReportFilter };
/** The dashboard as the console reads it: the analytics and the thresholds they were judged by. */
export type DashboardReport = DashboardView;

/** The operation log's filters (protocol/api/audit.ts). */
export type { OperationLogFilter };

type Params = Record<string, string | number | undefined>;

/** The viewer's time zone, so periods start at the viewer's midnight. */
export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const withZone = (f: ReportFilter): Params => ({ ...f, timeZone: f.timeZone ?? viewerTimeZone() });

/**
 * Downloads an export through the browser: fetched with the session header (a plain link cannot send
 * X-Token), then saved under the server's file name.
 */
async function download(url: string, params: Params): Promise<void> {
  const res = await fetch(`${url}${queryString(params)}`, { headers: session.token ? { 'X-Token': session.token } : {} });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || type.includes('application/json')) {
    const env = (await res.json().catch(() => ({}))) as Parameters<typeof serverMessage>[0];
    throw new Error(serverMessage(env));
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** The report group's calls (docs/DECISIONS.md "Reports"). */
export const reportApi = {
  multiModel: (f: ReportFilter) => request<MultiModelReport>({ method: 'GET', url: '/report/multi-model', params: withZone(f) }),
  location: (f: ReportFilter) => request<LocationReport>({ method: 'GET', url: '/report/location', params: withZone(f) }),
  map: (f: ReportFilter, level: number) => request<MapReport>({ method: 'GET', url: '/report/map', params: { ...withZone(f), level } }),
  abnormal: (f: AbnormalFilter, pageNum: number, pageSize: number) =>
    request<AbnormalReport>({ method: 'GET', url: '/report/abnormal', params: { ...withZone(f), pageNum, pageSize } }),
  usage: (f: ReportFilter) => request<UsageReport>({ method: 'GET', url: '/report/usage', params: withZone(f) }),
  dashboard: () => request<DashboardReport>({ method: 'GET', url: '/report/dashboard', params: { timeZone: viewerTimeZone() } }),
  operationLog: (f: OperationLogFilter, pageNum: number, pageSize: number) =>
    request<Page<OperationLogEntry>>({ method: 'POST', url: '/operation-log/list', data: { ...f, pageNum, pageSize } }),
  /** Saves a report's table as CSV or XLSX; `lang` 1 Chinese, 2 English headers. */
  export: (report: 'multi-model' | 'location' | 'abnormal' | 'usage', format: ExportFormat, f: AbnormalFilter, lang: 1 | 2) =>
    download(`/report/${report}/export`, { ...withZone(f), format, lang }),
  exportOperationLog: (format: ExportFormat, f: OperationLogFilter, lang: 1 | 2) => download('/operation-log/export', { ...f, startTime: f.startTime ?? undefined, endTime: f.endTime ?? undefined, format, lang, timeZone: viewerTimeZone() }),
};
