import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as c from '../../protocol/api/device-fields.ts';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import { DeviceFieldRepository, optionsOf } from './repository.ts';
import type { DeviceFieldRow } from './tables.ts';

/** Defining, changing and deleting an organisation's fields (docs/DECISIONS.md, "Custom device fields"). */
export const FIELD_MANAGE_PERMISSION = 'device_field';
/** Setting a device's values: the key that annotates devices (their remark). */
export const FIELD_SET_PERMISSION = 'device_remark';

const viewOf = (r: DeviceFieldRow): c.DeviceFieldView => ({ id: r.id, orgId: r.org_id, name: r.name, type: r.type as c.DeviceFieldType, options: optionsOf(r) });

/** A select field's options from a body: each cleaned, at least one. */
function selectOptions(type: string, options: readonly string[] | undefined): string[] {
  if (type !== 'select') return [];
  const cleaned = (options ?? []).map((o) => cleanText(o, 'field.options', true));
  if (cleaned.length === 0) throw new ApiError(ApiCode.BadRequest, 'deviceField.optionsNeeded');
  return cleaned;
}

/**
 * Custom device fields (issue 23): an organisation's fields apply to its devices and those of the
 * organisations below it; callers list the fields of their organisations, and their devices' values come
 * with the device list. A route plugin.
 */
export async function deviceFieldRoutes(app: FastifyInstance, deps: { readonly db: Db; readonly clock: Clock }): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const fields = new DeviceFieldRepository(deps.db);

  // A call without a body (as before `sn` was taken) lists every field: the body defaults to {} before it is checked.
  const emptyBody = (req: FastifyRequest, _reply: unknown, done: () => void) => {
    req.body ??= {};
    done();
  };
  api.post('/device-field/list', { config: { permission: 'device_list' }, schema: { body: c.DeviceFieldListBody, response: { 200: c.DeviceFieldListReply } }, preValidation: emptyBody }, async (req) => {
    const caller = callerOf(req);
    const sn = req.body.sn;
    const list: c.DeviceFieldView[] = (sn === undefined ? await fields.list(caller.scope) : await fields.forDevice(caller, sn)).map(viewOf);
    return ok(list);
  });

  api.post('/device-field/add', { config: { permission: FIELD_MANAGE_PERMISSION }, schema: { body: c.DeviceFieldAddBody, response: { 200: c.DeviceFieldReply } } }, async (req) => {
    const caller = callerOf(req);
    const name = cleanText(req.body.name, 'field.name', true);
    const options = selectOptions(req.body.type, req.body.options);
    return ok(viewOf(await fields.add(caller.orgId, name, req.body.type, options, deps.clock.now())));
  });

  api.post('/device-field/update', { config: { permission: FIELD_MANAGE_PERMISSION }, schema: { body: c.DeviceFieldUpdateBody, response: { 200: c.DeviceFieldReply } } }, async (req) => {
    const field = await fields.inScope(req.body.id, callerOf(req).scope);
    const name = cleanText(req.body.name, 'field.name', true);
    return ok(viewOf(await fields.update(field, name, selectOptions(field.type, req.body.options ?? optionsOf(field)))));
  });

  api.delete('/device-field/:id', { config: { permission: FIELD_MANAGE_PERMISSION }, schema: { params: c.DeviceFieldIdPath, response: { 200: c.DeviceFieldDeleteReply } } }, async (req) => {
    const field = await fields.inScope(idOf(req.params.id), callerOf(req).scope);
    await fields.delete(field.id);
    return ok(null);
  });

  api.post('/device-field/set', { config: { permission: FIELD_SET_PERMISSION }, schema: { body: c.DeviceFieldSetBody, response: { 200: c.DeviceFieldValuesReply } } }, async (req) => {
    return ok(await fields.set(callerOf(req), req.body.sn, req.body.values));
  });
}
