import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import type { Selectable } from 'kysely';
import type { Caller } from '../accounts/caller.ts';
import { loadOrgTree, subtreeOf } from '../accounts/org-scope.ts';
import type { OperationLogTable } from '../db/schema.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { auditActionName } from '../../protocol/index.ts';
import { EXPORT_FORMATS, type ExportFormat, type OperationLogEntry } from '../../protocol/api/reports.ts';
import { type ExportColumn, exportTable, MAX_EXPORT_ROWS } from '../reports/export.ts';
import { isTimeZone } from '../reports/periods.ts';
import { callerOf } from '../http/guard.ts';
import { field, pagingProperties } from '../http/validation.ts';

/** Permission key of the system operation log (catalogue: report_operation_log). */
export const OPERATION_LOG_PERMISSION = 'report_operation_log';

export const listBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pagingProperties,
    account: field.text,
    path: field.text,
    startTime: field.epochMs,
    endTime: field.epochMs,
    orgId: field.id,
    method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    target: field.text,
  },
} as const;

export interface ListBody {
  pageNum: number;
  pageSize: number;
  account?: string;
  path?: string;
  startTime?: number | null;
  endTime?: number | null;
  /** The organisation (and its subtree) the entries belong to; must be in the caller's scope. */
  orgId?: number;
  method?: string;
  target?: string;
}

/**
 * The operation log (not in the spec's API): newest first, within the caller's organisation subtree.
 * Entries with no organisation (failed logins, refused sessions) are shown to the admin role only.
 * `account` matches a part of the name; `path` is the exact route pattern; times are inclusive epoch ms.
 */
export function registerOperationLogRoutes(app: FastifyInstance, deps: { db: Db }): void {
  const { db } = deps;
  app.post<{ Body: ListBody }>('/operation-log/list', { config: { permission: OPERATION_LOG_PERMISSION }, schema: { body: listBody } }, async (req) => {
    const b = req.body;
    const q = await filtered(db, callerOf(req), b);
    const { n } = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    const rows = await q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(b.pageSize)
      .offset((b.pageNum - 1) * b.pageSize)
      .execute();
    return ok({ total: Number(n), list: rows.map(entryOf) });
  });

  app.get<{ Querystring: ExportQuery }>('/operation-log/export', { config: { permission: OPERATION_LOG_PERMISSION }, schema: { querystring: exportQuery } }, async (req, reply) => {
    const q = req.query;
    const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
    const filters: Omit<ListBody, 'pageNum' | 'pageSize'> = {
      account: q.account,
      path: q.path,
      startTime: num(q.startTime),
      endTime: num(q.endTime),
      orgId: num(q.orgId),
      method: q.method,
      target: q.target,
    };
    const rows = await (await filtered(db, callerOf(req), filters)).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(MAX_EXPORT_ROWS).execute();
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
    const file = await exportTable(q.format, 'system-operation-log', columns, rows.map(entryOf), Date.now());
    return reply.header('content-type', file.contentType).header('content-disposition', `attachment; filename="${file.fileName}"`).header('cache-control', 'no-store').send(file.body);
  });
}

function entryOf(r: Selectable<OperationLogTable>): OperationLogEntry {
  return {
    id: r.id,
    accountId: r.account_id,
    account: r.account,
    orgId: r.org_id,
    method: r.method,
    path: r.path,
    target: r.target,
    code: r.code,
    ip: r.ip,
    createTime: Number(r.created_at),
    tokenName: r.token_name,
    targetName: r.target_name,
  };
}

/**
 * The log within the caller's scope, narrowed by the filters. Entries without an organisation (failed
 * logins, which name no account's organisation) belong to the platform: only a caller whose scope is every
 * organisation (the root's accounts) sees them. A customer organisation's `admin` role is no such caller.
 */
async function filtered(db: Db, caller: Caller, b: Omit<ListBody, 'pageNum' | 'pageSize'>) {
  let orgs: number[] = [...caller.scope];
  if (b.orgId !== undefined) {
    if (!caller.scope.has(b.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    orgs = subtreeOf(await loadOrgTree(db), b.orgId);
  }
  let q = db.selectFrom('operation_log').where((eb) => {
    const inScope = eb('org_id', 'in', orgs);
    return caller.scopeCoversAll && b.orgId === undefined ? eb.or([inScope, eb('org_id', 'is', null)]) : inScope;
  });
  const account = b.account?.trim();
  if (account) q = q.where(containsIgnoringCase('account', account));
  const path = b.path?.trim();
  if (path) q = q.where('path', '=', path);
  if (b.method) q = q.where('method', '=', b.method);
  const target = b.target?.trim();
  if (target) q = q.where('target', '=', target);
  if (b.startTime != null) q = q.where('created_at', '>=', b.startTime);
  if (b.endTime != null) q = q.where('created_at', '<=', b.endTime);
  return q;
}

const digits = { type: 'string', pattern: '^[0-9]{1,15}$' } as const;
const exportQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['format'],
  properties: {
    format: { type: 'string', enum: [...EXPORT_FORMATS] },
    account: field.text,
    path: field.text,
    startTime: digits,
    endTime: digits,
    orgId: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' },
    method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    target: field.text,
    timeZone: { type: 'string', maxLength: 64 },
    lang: { type: 'string', enum: ['1', '2'] },
  },
} as const;

interface ExportQuery {
  format: ExportFormat;
  account?: string;
  path?: string;
  startTime?: string;
  endTime?: string;
  orgId?: string;
  method?: string;
  target?: string;
  timeZone?: string;
  lang?: '1' | '2';
}
