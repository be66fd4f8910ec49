import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/groups.ts';
import type { Clock } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import type { DeviceViewRow } from './tables.ts';

/** Saved views belong to the device list: whoever sees it may save, load and share views. */
export const VIEW_PERMISSION = 'device_list';

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

function viewOf(row: DeviceViewRow & { owner?: string | null }, caller: Caller): c.SavedView {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    shared: row.shared === 1,
    mine: row.account_id === caller.accountId,
    owner: row.owner ?? (row.account_id === caller.accountId ? caller.account : ''),
    state: JSON.parse(row.state_json) as c.SavedViewState,
    updateTime: Number(row.updated_at),
  };
}

/**
 * Saved views of the device list (issue 23): each account saves views by name (filters, columns, sort),
 * private or shared with the accounts of its organisation and those above it; only its author changes or
 * deletes a view.
 */
export function registerSavedViewRoutes(app: FastifyInstance, deps: { readonly db: Db; readonly clock: Clock }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const views = new SavedViewRepository(deps.db);

  api.post('/saved-view/list', { config: { permission: VIEW_PERMISSION } }, async (req) => {
    const caller = callerOf(req);
    const list: c.SavedView[] = (await views.visible(caller)).map((r) => viewOf(r, caller));
    return ok(list);
  });

  api.post('/saved-view/save', { config: { permission: VIEW_PERMISSION }, schema: { body: c.SavedViewSaveBody } }, async (req) => {
    const caller = callerOf(req);
    const name = cleanText(req.body.name, 'field.name', true);
    const row = await views.save(caller, req.body.id, name, req.body.shared, req.body.state, deps.clock.now());
    return ok(viewOf(row, caller));
  });

  api.delete('/saved-view/:id', { config: { permission: VIEW_PERMISSION }, schema: { params: c.SavedViewIdPath } }, async (req) => {
    await views.delete(idOf(req.params.id), callerOf(req).accountId);
    return ok(null);
  });
}
