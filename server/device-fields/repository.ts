import * as c from '../../protocol/api/device-fields.ts';
import { msg } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import { cleanText } from '../http/validation.ts';
import type { DeviceFieldRow } from './tables.ts';

/** A select field's options as stored. */
export const optionsOf = (r: DeviceFieldRow): string[] => JSON.parse(r.options_json) as string[];

/** Custom device fields in the database (docs/DECISIONS.md, "Custom device fields"). */
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

  /** The fields in `scope` that apply to the device `sn` (its organisation's and those above it). */
  async forDevice(caller: Caller, sn: string): Promise<DeviceFieldRow[]> {
    const device = await this.#db.selectFrom('devices').select('org_id').where('sn', '=', sn).executeTakeFirst();
    if (!device || !caller.scope.has(device.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    const tree = await currentOrgTree(this.#db);
    return (await this.list(caller.scope)).filter((f) => tree.scopeOf(f.org_id).has(device.org_id));
  }

  async add(orgId: number, name: string, type: c.DeviceFieldType, options: readonly string[], now: number): Promise<DeviceFieldRow> {
    const count = await this.#db.selectFrom('device_fields').select((eb) => eb.fn.countAll<number | string>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
    if (Number(count.n) >= c.MAX_DEVICE_FIELDS) throw new ApiError(ApiCode.BadRequest, msg('deviceField.tooMany', { max: c.MAX_DEVICE_FIELDS }));
    await this.#nameFree(orgId, name);
    try {
      return await this.#db.insertInto('device_fields').values({ org_id: orgId, name, type, options_json: JSON.stringify(options), created_at: now }).returningAll().executeTakeFirstOrThrow();
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'deviceField.nameTaken');
      throw err;
    }
  }

  /**
   * Renames a field and, for a select field, replaces its options; devices holding an option that is
   * no longer offered lose that value. The type never changes (values of one type do not fit another).
   */
  async update(field: DeviceFieldRow, name: string, options: readonly string[]): Promise<DeviceFieldRow> {
    await this.#nameFree(field.org_id, name, field.id);
    const dropped = field.type === 'select' ? optionsOf(field).filter((o) => !options.includes(o)) : [];
    try {
      return await this.#db.transaction().execute(async (trx) => {
        if (dropped.length > 0) await trx.deleteFrom('device_field_values').where('field_id', '=', field.id).where('value', 'in', dropped).execute();
        return trx
          .updateTable('device_fields')
          .set({ name, options_json: JSON.stringify(field.type === 'select' ? options : []) })
          .where('id', '=', field.id)
          .returningAll()
          .executeTakeFirstOrThrow();
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(ApiCode.BadRequest, 'deviceField.nameTaken');
      throw err;
    }
  }

  async #nameFree(orgId: number, name: string, except?: number): Promise<void> {
    let q = this.#db.selectFrom('device_fields').select('id').where('org_id', '=', orgId).where('name', '=', name);
    if (except !== undefined) q = q.where('id', '<>', except);
    if (await q.executeTakeFirst()) throw new ApiError(ApiCode.BadRequest, 'deviceField.nameTaken');
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
  if (field.type === 'select' && !optionsOf(field).includes(value)) throw new ApiError(ApiCode.BadRequest, msg('deviceField.notAnOption', { name: field.name }));
  return value;
}
