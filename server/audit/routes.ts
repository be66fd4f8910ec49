import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/audit.ts';
import type { Db } from '../db/database.ts';
import { ok } from '../http/envelope.ts';
import { auditActionName } from '../../protocol/index.ts';
import type { OperationLogEntry } from '../../protocol/api/reports.ts';
import { type ExportColumn, exportTable, MAX_EXPORT_ROWS } from '../reports/export.ts';
import { isTimeZone } from '../reports/periods.ts';
import { callerOf } from '../http/guard.ts';
import { OperationLogRepository } from './repository.ts';

/** Permission key of the system operation log (catalogue: report_operation_log). */
export const OPERATION_LOG_PERMISSION = 'report_operation_log';

/**
 * The operation log (not in the spec's API): newest first, within the caller's organisation subtree.
 * Entries with no organisation (failed logins, refused sessions) are shown to the admin role only.
 * `account` matches a part of the name; `path` is the exact route pattern; times are inclusive epoch ms.
 */
export async function operationLogRoutes(app: FastifyInstance, deps: { db: Db }): Promise<void> {
  const log = new OperationLogRepository(deps.db);
  // Requests typed from the contract's schemas (protocol/api/audit.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post('/operation-log/list', { config: { permission: OPERATION_LOG_PERMISSION }, schema: { body: c.OperationLogListBody } }, async (req) => ok(await log.page(callerOf(req), req.body)));

  api.get('/operation-log/export', { config: { permission: OPERATION_LOG_PERMISSION }, schema: { querystring: c.OperationLogExportQuery } }, async (req, reply) => {
    const q = req.query;
    const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
    const filters: c.OperationLogFilter = {
      account: q.account,
      path: q.path,
      startTime: num(q.startTime),
      endTime: num(q.endTime),
      orgId: num(q.orgId),
      method: q.method,
      target: q.target,
    };
    const entries = await log.newest(callerOf(req), filters, MAX_EXPORT_ROWS);
    const h = (en: string, zh: string) => (q.lang === '1' ? zh : en);
    const tz = q.timeZone && isTimeZone(q.timeZone) ? q.timeZone : 'UTC';
    const time = new Intl.DateTimeFormat('sv-SE', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    const columns: ExportColumn<OperationLogEntry>[] = [
      { header: h('Time', '时间'), value: (e) => time.format(e.createTime) },
      { header: h('Account', '账号'), value: (e) => (e.tokenName ? `${e.account} (API token: ${e.tokenName})` : e.account) },
      { header: h('Organisation', '组织'), value: (e) => e.orgId ?? '' },
      { header: h('Action', '操作'), value: (e) => auditActionName(e.method, e.path, q.lang === '1' ? 'zh' : 'en') },
      { header: h('Target', '对象'), value: (e) => e.targetName },
      { header: h('Target ID', '对象 ID'), value: (e) => e.target },
      { header: h('Route', '接口'), value: (e) => `${e.method} ${e.path}` },
      { header: h('Result code', '结果码'), value: (e) => e.code },
      { header: h('IP', 'IP'), value: (e) => e.ip },
    ];
    const file = await exportTable(q.format, 'system-operation-log', columns, entries, Date.now());
    return reply.header('content-type', file.contentType).header('content-disposition', `attachment; filename="${file.fileName}"`).header('cache-control', 'no-store').send(file.body);
  });
}
