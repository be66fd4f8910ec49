import { type GroupQuery, type GroupView } from '../../protocol/api/groups.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import { type DeviceFilter, DeviceRepository } from '../devices/repository.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import type { DeviceGroupRow } from './tables.ts';

/** Organisations both sets hold. */
function intersect(a: ReadonlySet<number>, b: ReadonlySet<number>): ReadonlySet<number> {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  return new Set([...small].filter((id) => big.has(id)));
}

export function parseGroupQuery(json: string): GroupQuery {
  return JSON.parse(json) as GroupQuery;
}

/**
 * The device filter of a group query within `scope`: the query's `orgSubtree` narrows the scope to that
 * organisation and those below it; the rest are the device list's filters with their meaning there.
 */
export async function groupFilter(db: Db, query: GroupQuery, scope: ReadonlySet<number>): Promise<DeviceFilter> {
  const { orgSubtree, ...filters } = query;
  const narrowed = orgSubtree === undefined ? scope : intersect(scope, (await currentOrgTree(db)).scopeOf(orgSubtree));
  return { ...filters, scope: narrowed };
}

/**
 * Where a group's members may come from when `callerScope` uses it: the group's own organisation and
 * those below it, and never beyond the caller's (or a campaign's) organisations.
 */
export async function groupScope(db: Db, group: DeviceGroupRow, callerScope: ReadonlySet<number>): Promise<ReadonlySet<number>> {
  return intersect(callerScope, (await currentOrgTree(db)).scopeOf(group.org_id));
}

/** Dynamic groups in the database; members are evaluated from the devices each time. */
export class GroupRepository {
  readonly #db: Db;
  readonly #devices: DeviceRepository;

  constructor(db: Db) {
    this.#db = db;
    this.#devices = new DeviceRepository(db);
  }

  /** The group when the caller's organisations hold it; a missing group and another organisation's look alike. */
  async inScope(id: number, scope: ReadonlySet<number>): Promise<DeviceGroupRow> {
    const row = await this.#db.selectFrom('device_groups').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'group.notFound');
    return row;
  }

  async create(orgId: number, accountId: number, name: string, query: GroupQuery, now: number): Promise<DeviceGroupRow> {
    await this.#nameFree(orgId, name);
    try {
      return await this.#db
        .insertInto('device_groups')
        .values({ org_id: orgId, account_id: accountId, name, query_json: JSON.stringify(query), created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'group.nameTaken');
      throw err;
    }
  }

  async update(group: DeviceGroupRow, name: string, query: GroupQuery, now: number): Promise<DeviceGroupRow> {
    if (name !== group.name) await this.#nameFree(group.org_id, name);
    try {
      return await this.#db
        .updateTable('device_groups')
        .set({ name, query_json: JSON.stringify(query), updated_at: now })
        .where('id', '=', group.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'group.nameTaken');
      throw err;
    }
  }

  async #nameFree(orgId: number, name: string): Promise<void> {
    const taken = await this.#db.selectFrom('device_groups').select('id').where('org_id', '=', orgId).where('name', '=', name).executeTakeFirst();
    if (taken) throw new ApiError(ApiCode.BadRequest, 'group.nameTaken');
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('device_groups').where('id', '=', id).execute();
  }

  /** A page of the groups of `scope`, newest first. */
  async list(scope: ReadonlySet<number>, name: string, limit: number, offset: number): Promise<{ total: number; rows: (DeviceGroupRow & { org_name: string | null })[] }> {
    if (scope.size === 0) return { total: 0, rows: [] };
    let q = this.#db.selectFrom('device_groups').where('device_groups.org_id', 'in', [...scope]);
    if (name) q = q.where(containsIgnoringCase('device_groups.name', name));
    const [{ total }, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
      q
        .leftJoin('organisations', 'organisations.id', 'device_groups.org_id')
        .selectAll('device_groups')
        .select('organisations.name as org_name')
        .orderBy('device_groups.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    ]);
    return { total: Number(total), rows };
  }

  /** The group's members as the caller (or campaign) with `scope` sees them: how many, and up to `limit` serials. */
  async memberSns(group: DeviceGroupRow, scope: ReadonlySet<number>, limit: number): Promise<{ total: number; sns: string[] }> {
    const filter = await groupFilter(this.#db, parseGroupQuery(group.query_json), await groupScope(this.#db, group, scope));
    return this.#devices.select(filter, limit);
  }

  async view(row: DeviceGroupRow & { org_name?: string | null }, scope: ReadonlySet<number>): Promise<GroupView> {
    const members = (await this.memberSns(row, scope, 0)).total;
    return {
      id: row.id,
      orgId: row.org_id,
      orgName: row.org_name ?? '',
      name: row.name,
      query: parseGroupQuery(row.query_json),
      createdBy: row.account_id,
      members,
      createTime: Number(row.created_at),
      updateTime: Number(row.updated_at),
    };
  }
}
