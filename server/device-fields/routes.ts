import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/device-fields.ts';
import { type Clock, msg } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import type { DeviceFieldRow } from './tables.ts';

/** Defining and deleting an organisation's fields (docs/DECISIONS.md, "Custom device fields"). */
export const FIELD_MANAGE_PERMISSION = 'device_field';
/** Setting a device's values: the key that annotates devices (their remark). */
export const FIELD_SET_PERMISSION = 'device_remark';

const viewOf = (r: DeviceFieldRow): c.DeviceFieldView => ({ id: r.id, orgId: r.org_id, name: r.name, type: r.type as c.DeviceFieldType, options: JSON.parse(r.options_json) as string[] });

/** Custom device fields in the database. */
export class DeviceFieldRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Fields of the organisations `scope`, oldest first. */
  list(scope: ReadonlySet<number>): Promise<DeviceFieldRow[]> {
    if (scope.size === 0) return Promise.resolve([]);
    return this.#db.selectFrom('device_fields').selectAll().where('org_id', 'in', [...scope]).orderBy('id').execute();
  }

  async add(orgId: number, name: string, type: c.DeviceFieldType, options: readonly string[], now: number): Promise<DeviceFieldRow> {
    const count = await this.#db.selectFrom('device_fields').select((eb) => eb.fn.countAll<number | string>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
    if (Number(count.n) >= c.MAX_DEVICE_FIELDS) throw new ApiError(ApiCode.BadRequest, msg('deviceField.tooMany', { max: c.MAX_DEVICE_FIELDS }));
    const taken = await this.#db.selectFrom('device_fields').select('id').where('org_id', '=', orgId).where('name', '=', name).executeTakeFirst();
    if (taken) throw new ApiError(ApiCode.BadRequest, 'deviceField.nameTaken');
    try {
      return await this.#db.insertInto('device_fields').values({ org_id: orgId, name, type, options_json: JSON.stringify(options), created_at: now }).returningAll().executeTakeFirstOrThrow();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'deviceField.nameTaken');
      throw err;
    }
  }

  async inScope(id: number, scope: ReadonlySet<number>): Promise<DeviceFieldRow> {
    const row = await this.#db.selectFrom('device_fields').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'deviceField.notFound');
    return row;
  }

  async delete(id: number): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.deleteFrom('device_field_values').where('field_id', '=', id).execute();
      await trx.deleteFrom('device_fields').where('id', '=', id).execute();
    });
  }

  /** Writes a device's values ('' deletes); each field applies to its organisation's subtree only. */
  async set(caller: Caller, sn: string, values: readonly { id: number; value: string }[]): Promise<Record<string, string>> {
    const device = await this.#db.selectFrom('devices').select(['sn', 'org_id']).where('sn', '=', sn).executeTakeFirst();
    if (!device || !caller.scope.has(device.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    const tree = await currentOrgTree(this.#db);
    const checked: { field: DeviceFieldRow; value: string }[] = [];
    for (const v of values) {
      const field = await this.inScope(v.id, caller.scope);
      if (!tree.scopeOf(field.org_id).has(device.org_id)) throw new ApiError(ApiCode.BadRequest, 'deviceField.notForDevice');
      checked.push({ field, value: checkValue(field, v.value) });
    }
    await this.#db.transaction().execute(async (trx) => {
      for (const { field, value } of checked) {
        await trx.deleteFrom('device_field_values').where('field_id', '=', field.id).where('sn', '=', sn).execute();
        if (value) await trx.insertInto('device_field_values').values({ field_id: field.id, sn, value }).execute();
      }
    });
    return Object.fromEntries(checked.filter((x) => x.value).map((x) => [String(x.field.id), x.value]));
  }
}

/** A value as stored: trimmed; a number in its plain form; a select value one of its options. */
function checkValue(field: DeviceFieldRow, raw: string): string {
  const value = cleanText(raw, 'field.value', false);
  if (!value) return '';
  if (field.type === 'number') {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new ApiError(ApiCode.BadRequest, msg('deviceField.notNumber', { name: field.name }));
    return String(n);
  }
  if (field.type === 'select' && !(JSON.parse(field.options_json) as string[]).includes(value)) throw new ApiError(ApiCode.BadRequest, msg('deviceField.notAnOption', { name: field.name }));
  return value;
}

/**
 * Custom device fields (issue 23): an organisation's fields apply to its devices and those of the
 * organisations below it; callers list the fields of their organisations, and their devices' values come
 * with the device list.
 */
export function registerDeviceFieldRoutes(app: FastifyInstance, deps: { readonly db: Db; readonly clock: Clock }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const fields = new DeviceFieldRepository(deps.db);

  api.post('/device-field/list', { config: { permission: 'device_list' } }, async (req) => {
    const list: c.DeviceFieldView[] = (await fields.list(callerOf(req).scope)).map(viewOf);
    return ok(list);
  });

  api.post('/device-field/add', { config: { permission: FIELD_MANAGE_PERMISSION }, schema: { body: c.DeviceFieldAddBody } }, async (req) => {
    const caller = callerOf(req);
    const name = cleanText(req.body.name, 'field.name', true);
    const options = req.body.type === 'select' ? (req.body.options ?? []).map((o) => cleanText(o, 'field.options', true)) : [];
    if (req.body.type === 'select' && options.length === 0) throw new ApiError(ApiCode.BadRequest, 'deviceField.optionsNeeded');
    return ok(viewOf(await fields.add(caller.orgId, name, req.body.type, options, deps.clock.now())));
  });

  api.delete('/device-field/:id', { config: { permission: FIELD_MANAGE_PERMISSION }, schema: { params: c.DeviceFieldIdPath } }, async (req) => {
    const field = await fields.inScope(idOf(req.params.id), callerOf(req).scope);
    await fields.delete(field.id);
    return ok(null);
  });

  api.post('/device-field/set', { config: { permission: FIELD_SET_PERMISSION }, schema: { body: c.DeviceFieldSetBody } }, async (req) => {
    return ok(await fields.set(callerOf(req), req.body.sn, req.body.values));
  });
}
