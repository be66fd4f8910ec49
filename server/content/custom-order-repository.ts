// Queries of custom firmware orders (server/content/custom-orders.ts checks and answers with them).
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ContentItemTable, CustomFirmwareOrderTable } from './tables.ts';

export type CustomOrderRow = Selectable<CustomFirmwareOrderTable>;

/** Custom firmware orders and their attachments. A step is a conditional update on the state it leaves. */
export class CustomOrderRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** A window of the orders of `scope` (optionally in one state), newest first. */
  async page(scope: readonly number[], state: number | undefined, window: { limit: number; offset: number }): Promise<{ total: number; rows: CustomOrderRow[] }> {
    let q = this.#db.selectFrom('custom_firmware_orders').where('org_id', 'in', scope);
    if (state !== undefined) q = q.where('state', '=', state);
    const [{ total }, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
      q.selectAll().orderBy('id', 'desc').limit(window.limit).offset(window.offset).execute(),
    ]);
    return { total: Number(total), rows };
  }

  find(id: number): Promise<CustomOrderRow | undefined> {
    return this.#db.selectFrom('custom_firmware_orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Whether an organisation is the platform (the root, which has no parent). */
  async isPlatformOrg(orgId: number): Promise<boolean> {
    const org = await this.#db.selectFrom('organisations').select('parent_id').where('id', '=', orgId).executeTakeFirst();
    return org?.parent_id === null;
  }

  /** Stores an uploaded attachment as a content item; its id. */
  async addAttachment(item: Insertable<ContentItemTable>): Promise<number> {
    return (await this.#db.insertInto('content_items').values(item).returning('id').executeTakeFirstOrThrow()).id;
  }

  insert(order: Insertable<CustomFirmwareOrderTable>): Promise<CustomOrderRow> {
    return this.#db.insertInto('custom_firmware_orders').values(order).returningAll().executeTakeFirstOrThrow();
  }

  /** Applies `set` if the order is still in `state` (two racing steps take effect once); the order after, or undefined. */
  async step(id: number, state: number, set: Updateable<CustomFirmwareOrderTable>): Promise<CustomOrderRow | undefined> {
    const r = await this.#db.updateTable('custom_firmware_orders').set(set).where('id', '=', id).where('state', '=', state).executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return undefined;
    return this.#db.selectFrom('custom_firmware_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }
}
