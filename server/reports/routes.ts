import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { abnormalTypeLabel, type Clock, msg } from '../../protocol/index.ts';
import { loadOrgTree, subtreeOf } from '../accounts/org-scope.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import * as c from '../../protocol/api/reports.ts';
import type { ExportFormat } from '../../protocol/api/reports.ts';
import { type ExportColumn, exportTable, MAX_EXPORT_ROWS } from './export.ts';
import { DAY_MS, HOUR_MS, isTimeZone, periodOf } from './periods.ts';
import { abnormalRecords, abnormalReport } from './abnormal-report.ts';
import { locationReport, mapPoints } from './location-report.ts';
import type { Scope } from './report-scope.ts';
import { dashboardReport, multiModelReport, usageReport } from './repository.ts';

/** Permission keys of the report group (devices-and-commerce section 2) and the dashboard (platform-core). */
export const ReportPermission = {
  multiModel: 'report_multiModelAnalyse',
  location: 'report_locationmap',
  abnormal: 'report_abnormal',
  usage: 'report_statistics_usetime',
  dashboard: 'home_list',
} as const;

// Longest range one query may cover; DATE periods over it are 731 points, which a chart still draws.
const MAX_RANGE_MS = 731 * DAY_MS;
const DEFAULT_RANGE_MS = 30 * DAY_MS;

/** A report's scope, range and zone as every report query carries them (protocol/api/reports.ts). */
type ScopeQuery = c.ReportQuery & { readonly format?: ExportFormat };

/** The organisations a report covers: the caller's scope, or the subtree of a chosen organisation in it. */
async function scopeOf(db: Db, caller: Caller, orgId: string | undefined): Promise<Scope> {
  if (orgId === undefined) return { orgIds: [...caller.scope], coversAll: caller.scopeCoversAll };
  const id = Number(orgId);
  if (!caller.scope.has(id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  const tree = await loadOrgTree(db);
  const orgIds = subtreeOf(tree, id);
  return { orgIds, coversAll: orgIds.length === tree.parentOf.size };
}

function rangeOf(q: ScopeQuery, now: number) {
  const to = q.endTime !== undefined ? Number(q.endTime) : now;
  // The default range starts on the hour, so the hourly rollups answer it exactly.
  const from = q.startTime !== undefined ? Number(q.startTime) : Math.floor((to - DEFAULT_RANGE_MS) / HOUR_MS) * HOUR_MS;
  if (!(to > from)) throw new ApiError(ApiCode.BadRequest, 'report.endBeforeStart');
  if (to - from > MAX_RANGE_MS) throw new ApiError(ApiCode.BadRequest, 'report.rangeTooLong');
  const tz = q.timeZone ?? 'UTC';
  if (!isTimeZone(tz)) throw new ApiError(ApiCode.BadRequest, msg('report.unknownTimeZone', { zone: tz }));
  return { from, to, period: q.period ?? 'DATE', tz, now };
}

async function sendFile(reply: FastifyReply, file: { body: Buffer; contentType: string; fileName: string }) {
  return reply
    .header('content-type', file.contentType)
    .header('content-disposition', `attachment; filename="${file.fileName}"`)
    .header('cache-control', 'no-store')
    .send(file.body);
}

const fmtTime = (t: number, tz: string) => {
  if (!t) return '';
  const p = new Intl.DateTimeFormat('sv-SE', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  // sv-SE formats as yyyy-MM-dd HH:mm:ss, the spec's date-time format.
  return p.format(t);
};
const pct = (v: number) => Math.round(v * 10) / 10;

/** Header text in the requested language (1 Chinese, 2 English). */
const header = (lang: string | undefined) => (en: string, zh: string) => (lang === '1' ? zh : en);

export interface ReportDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/**
 * The report and dashboard endpoints, a route plugin over the telemetry plugin's `app.telemetry` and
 * `app.usage` (server/telemetry/plugin.ts, registered before it). Reports are GET calls: they change
 * nothing, so the operation log does not record them.
 */
export async function reportRoutes(app: FastifyInstance, deps: ReportDeps): Promise<void> {
  const { db, clock } = deps;
  const { telemetry, usage } = app;
  // Query strings typed from the contract's schemas (protocol/api/reports.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const thresholds = () => ({ cpu: telemetry.settings.cpuThreshold, memory: telemetry.settings.memoryThreshold });

  // Multi-model analysis
  const multiModel = async (q: ScopeQuery, caller: Caller) => {
    await telemetry.flush();
    return multiModelReport(db, await scopeOf(db, caller, q.orgId), rangeOf(q, clock.now()));
  };
  api.get('/report/multi-model', { config: { permission: ReportPermission.multiModel }, schema: { querystring: c.ReportQuery } }, async (req) =>
    ok(await multiModel(req.query, callerOf(req))),
  );
  api.get(
    '/report/multi-model/export',
    { config: { permission: ReportPermission.multiModel }, schema: { querystring: c.ReportExportQuery } },
    async (req, reply) => {
      const r = await multiModel(req.query, callerOf(req));
      const h = header(req.query.lang);
      const columns: ExportColumn<(typeof r.models)[number]>[] = [
        { header: h('Model', '型号'), value: (m) => m.model },
        { header: h('Devices', '设备数'), value: (m) => m.total },
        { header: h('Online', '在线'), value: (m) => m.online },
        { header: h('Online rate (%)', '在线率(%)'), value: (m) => pct(m.onlineRate) },
        { header: h('Period online rate (%)', '周期在线率(%)'), value: (m) => pct(m.periodOnlineRate) },
        { header: h('Average CPU (%)', '平均CPU(%)'), value: (m) => pct(m.avgCpu) },
        { header: h('Average memory (%)', '平均内存(%)'), value: (m) => pct(m.avgMemory) },
        { header: h('Versions', '版本'), value: (m) => m.versions.map((v) => `${v.version}:${v.count}`).join(' ') },
      ];
      return sendFile(reply, await exportTable(req.query.format ?? 'csv', 'multi-model-analysis', columns, r.models, clock.now()));
    },
  );

  // Device locations and the map
  api.get('/report/location', { config: { permission: ReportPermission.location }, schema: { querystring: c.ReportQuery } }, async (req) => {
    await telemetry.flush();
    return ok(await locationReport(db, await scopeOf(db, callerOf(req), req.query.orgId)));
  });
  api.get(
    '/report/location/export',
    { config: { permission: ReportPermission.location }, schema: { querystring: c.ReportExportQuery } },
    async (req, reply) => {
      await telemetry.flush();
      const r = await locationReport(db, await scopeOf(db, callerOf(req), req.query.orgId));
      const h = header(req.query.lang);
      const columns: ExportColumn<(typeof r.regions)[number]>[] = [
        { header: h('Country', '国家'), value: (x) => x.country },
        { header: h('Region', '地区'), value: (x) => x.region },
        { header: h('Devices', '设备数'), value: (x) => x.devices },
        { header: h('Online', '在线'), value: (x) => x.online },
      ];
      return sendFile(reply, await exportTable(req.query.format ?? 'csv', 'device-location-statistics', columns, r.regions, clock.now()));
    },
  );
  api.get(
    '/report/map',
    { config: { permission: ReportPermission.location }, schema: { querystring: c.MapQuery } },
    async (req) => {
      await telemetry.flush();
      return ok(await mapPoints(db, await scopeOf(db, callerOf(req), req.query.orgId), Number(req.query.level ?? 0)));
    },
  );

  // Abnormal statistics
  const abnormalQuery = (q: c.AbnormalQuery) => ({
    ...rangeOf(q, clock.now()),
    type: q.type || undefined,
    cpuMin: q.cpuMin !== undefined ? Number(q.cpuMin) : undefined,
    memoryMin: q.memoryMin !== undefined ? Number(q.memoryMin) : undefined,
    sn: q.sn?.trim() || undefined,
  });
  api.get(
    '/report/abnormal',
    { config: { permission: ReportPermission.abnormal }, schema: { querystring: c.AbnormalQuery } },
    async (req) => {
      await telemetry.flush();
      const q = req.query;
      const r = await abnormalReport(db, await scopeOf(db, callerOf(req), q.orgId), abnormalQuery(q), { pageNum: Number(q.pageNum ?? 1), pageSize: Number(q.pageSize ?? 10) });
      return ok({ ...r, thresholds: thresholds() });
    },
  );
  api.get(
    '/report/abnormal/export',
    { config: { permission: ReportPermission.abnormal }, schema: { querystring: c.AbnormalExportQuery } },
    async (req, reply) => {
      await telemetry.flush();
      const q = abnormalQuery(req.query);
      const rows = await abnormalRecords(db, await scopeOf(db, callerOf(req), req.query.orgId), q, MAX_EXPORT_ROWS);
      const h = header(req.query.lang);
      const columns: ExportColumn<(typeof rows)[number]>[] = [
        { header: h('SN', '设备SN'), value: (x) => x.sn },
        { header: h('Model', '型号'), value: (x) => x.model },
        { header: h('Type', '类型'), value: (x) => abnormalTypeLabel(x.type, req.query.lang === '1' ? 'zh' : 'en') },
        { header: h('Time', '时间'), value: (x) => fmtTime(x.time, q.tz) },
        { header: h('CPU (%)', 'CPU(%)'), value: (x) => pct(x.cpu) },
        { header: h('Memory (%)', '内存(%)'), value: (x) => pct(x.memory) },
        { header: h('Detail', '详情'), value: (x) => x.detail },
      ];
      return sendFile(reply, await exportTable(req.query.format ?? 'csv', 'abnormal-statistics', columns, rows, clock.now()));
    },
  );

  // Platform usage statistics
  const usageOf = async (q: ScopeQuery, caller: Caller) => {
    await usage.flush();
    const range = rangeOf(q, clock.now());
    return usageReport(db, await scopeOf(db, caller, q.orgId), range);
  };
  api.get('/report/usage', { config: { permission: ReportPermission.usage }, schema: { querystring: c.ReportQuery } }, async (req) =>
    ok(await usageOf(req.query, callerOf(req))),
  );
  api.get(
    '/report/usage/export',
    { config: { permission: ReportPermission.usage }, schema: { querystring: c.ReportExportQuery } },
    async (req, reply) => {
      const r = await usageOf(req.query, callerOf(req));
      const h = header(req.query.lang);
      const tz = req.query.timeZone ?? 'UTC';
      const columns: ExportColumn<(typeof r.accounts)[number]>[] = [
        { header: h('Account', '账号'), value: (x) => x.account },
        { header: h('Organisation', '组织'), value: (x) => x.orgName },
        { header: h('Sessions', '会话数'), value: (x) => x.sessions },
        { header: h('Active minutes', '活跃分钟'), value: (x) => Math.round(x.activeMs / 60_000) },
        { header: h('Requests', '请求数'), value: (x) => x.requests },
        { header: h('Last active', '最近活跃'), value: (x) => fmtTime(x.lastActive, tz) },
      ];
      return sendFile(reply, await exportTable(req.query.format ?? 'csv', 'platform-usage-statistics', columns, r.accounts, clock.now()));
    },
  );

  // Dashboard
  api.get('/report/dashboard', { config: { permission: ReportPermission.dashboard }, schema: { querystring: c.ReportQuery } }, async (req) => {
    await telemetry.flush();
    const now = clock.now();
    const tz = req.query.timeZone ?? 'UTC';
    if (!isTimeZone(tz)) throw new ApiError(ApiCode.BadRequest, msg('report.unknownTimeZone', { zone: tz }));
    const r = await dashboardReport(db, await scopeOf(db, callerOf(req), req.query.orgId), now, periodOf(now, 'DATE', tz).start, thresholds());
    return ok({ ...r, thresholds: thresholds() });
  });

}
