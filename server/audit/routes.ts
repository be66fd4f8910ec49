import type { FastifyInstance } from 'fastify';
import { ADMIN_ROLE } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import { ok } from '../http/envelope.ts';
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
  },
} as const;

export interface ListBody {
  pageNum: number;
  pageSize: number;
  account?: string;
  path?: string;
  startTime?: number | null;
  endTime?: number | null;
}

export interface OperationLogEntry {
  readonly id: number;
  readonly accountId: number | null;
  readonly account: string;
  readonly orgId: number | null;
  readonly method: string;
  readonly path: string;
  readonly target: string;
  readonly code: number;
  readonly ip: string;
  readonly createTime: number;
}

/**
 * The operation log (not in the spec's API): newest first, within the caller's organisation subtree.
 * Entries with no organisation (failed logins, refused sessions) are shown to the admin role only.
 * `account` matches a part of the name; `path` is the exact route pattern; times are inclusive epoch ms.
 */
export function registerOperationLogRoutes(app: FastifyInstance, deps: { db: Db }): void {
  const { db } = deps;
  app.post<{ Body: ListBody }>('/operation-log/list', { config: { permission: OPERATION_LOG_PERMISSION }, schema: { body: listBody } }, async (req) => {
    const caller = callerOf(req);
    const b = req.body;
    let q = db.selectFrom('operation_log').where((eb) => {
      const inScope = eb('org_id', 'in', [...caller.scope]);
      return caller.role === ADMIN_ROLE ? eb.or([inScope, eb('org_id', 'is', null)]) : inScope;
    });
    const account = b.account?.trim();
    if (account) q = q.where(containsIgnoringCase('account', account));
    const path = b.path?.trim();
    if (path) q = q.where('path', '=', path);
    if (b.startTime != null) q = q.where('created_at', '>=', b.startTime);
    if (b.endTime != null) q = q.where('created_at', '<=', b.endTime);
    const { n } = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    const rows = await q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(b.pageSize)
      .offset((b.pageNum - 1) * b.pageSize)
      .execute();
    const list: OperationLogEntry[] = rows.map((r) => ({
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
    }));
    return ok({ total: Number(n), list });
  });
}
