// Queries of saved device-list views (server/groups/views.ts answers with them).
import type * as c from '../../protocol/api/groups.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import type { DeviceViewRow } from './tables.ts';

/** Saved views of the device list in the database. */
export class SavedViewRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The caller's own views and those shared in the organisations it reaches, by name. */
  async visible(caller: Caller): Promise<(DeviceViewRow & { owner: string | null })[]> {
    return this.#db
      .selectFrom('device_views')
      .leftJoin('accounts', 'accounts.id', 'device_views.account_id')
      .selectAll('device_views')
      .select('accounts.account as owner')
      .where((eb) => eb.or([eb('device_views.account_id', '=', caller.accountId), eb.and([eb('device_views.shared', '=', 1), eb('device_views.org_id', 'in', [...caller.scope])])]))
      .orderBy('device_views.name')
      .orderBy('device_views.id')
      .limit(500)
      .execute();
  }

  async own(id: number, accountId: number): Promise<DeviceViewRow> {
    const row = await this.#db.selectFrom('device_views').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw new ApiError(ApiCode.NotFound, 'view.notFound');
    return row;
  }

  async save(caller: Caller, id: number | undefined, name: string, shared: boolean, state: c.SavedViewState, now: number): Promise<DeviceViewRow> {
    const taken = await this.#db.selectFrom('device_views').select('id').where('account_id', '=', caller.accountId).where('name', '=', name).executeTakeFirst();
    if (taken && taken.id !== id) throw new ApiError(ApiCode.BadRequest, 'view.nameTaken');
    const values = { name, shared: shared ? 1 : 0, state_json: JSON.stringify(state), updated_at: now };
    try {
      if (id !== undefined) {
        await this.own(id, caller.accountId);
        return await this.#db.updateTable('device_views').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
      }
      return await this.#db
        .insertInto('device_views')
        .values({ ...values, org_id: caller.orgId, account_id: caller.accountId, created_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'view.nameTaken');
      throw err;
    }
  }

  async delete(id: number, accountId: number): Promise<void> {
    await this.own(id, accountId);
    await this.#db.deleteFrom('device_views').where('id', '=', id).execute();
  }
}
