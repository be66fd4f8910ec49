import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/groups.ts';
import type { Clock } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import type { DeviceViewRow } from './tables.ts';
import { SavedViewRepository } from './view-repository.ts';

/** Saved views belong to the device list: whoever sees it may save, load and share views. */
export const VIEW_PERMISSION = 'device_list';

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
export async function savedViewRoutes(app: FastifyInstance, deps: { readonly db: Db; readonly clock: Clock }): Promise<void> {
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
