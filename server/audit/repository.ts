// Queries of the operation log (server/audit/routes.ts answers with them): the caller's entries, newest
// first, narrowed by the list's filters.
import type { Selectable } from 'kysely';
import type { OperationLogFilter, OperationLogListBody } from '../../protocol/api/audit.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { OperationLogEntry } from '../../protocol/api/reports.ts';
import type { Caller } from '../accounts/caller.ts';
import { loadOrgTree, subtreeOf } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import type { OperationLogTable } from '../db/schema.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import { pageWindow } from '../http/paging.ts';

export class OperationLogRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** One page of the caller's entries matching the filters, newest first. */
  async page(caller: Caller, body: OperationLogListBody): Promise<Page<OperationLogEntry>> {
    const q = await filtered(this.#db, caller, body);
    const { n } = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    const { limit, offset } = pageWindow(body);
    const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
    return { total: Number(n), list: rows.map(entryOf) };
  }

  /** The newest `limit` of the caller's entries matching the filters (an export). */
  async newest(caller: Caller, filters: OperationLogFilter, limit: number): Promise<OperationLogEntry[]> {
    const rows = await (await filtered(this.#db, caller, filters)).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(entryOf);
  }
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
async function filtered(db: Db, caller: Caller, b: OperationLogFilter) {
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
