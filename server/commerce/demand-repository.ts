// Queries of order demands (server/commerce/demand-routes.ts checks and answers with them).
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { OrderDemandTable } from '../db/schema.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import type { DemandListQuery } from '../../protocol/api/commerce.ts';

export type DemandRow = Selectable<OrderDemandTable>;

/** The list's filters: the contract's query (parts of the number and customer) with its state read as a number. */
export type DemandFilter = { readonly [K in 'number' | 'customer']?: DemandListQuery[K] | undefined } & { readonly state?: number | undefined };

/** Order demands. State changes are conditional updates: each names the states it may leave. */
export class DemandRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  find(id: number): Promise<DemandRow | undefined> {
    return this.#db.selectFrom('order_demands').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByNumber(number: string): Promise<DemandRow | undefined> {
    return this.#db.selectFrom('order_demands').selectAll().where('number', '=', number).executeTakeFirst();
  }

  /** A page of the demands of `scope`, newest first. */
  async page(scope: readonly number[], filter: DemandFilter, pageNum: number, pageSize: number): Promise<{ total: number; rows: DemandRow[] }> {
    let query = this.#db.selectFrom('order_demands').where('org_id', 'in', scope);
    if (filter.number) query = query.where(containsIgnoringCase('number', filter.number));
    if (filter.customer) query = query.where(containsIgnoringCase('customer', filter.customer));
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    const total = Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
    return { total, rows };
  }

  insert(values: Insertable<OrderDemandTable>): Promise<DemandRow> {
    return this.#db.insertInto('order_demands').values(values).returningAll().executeTakeFirstOrThrow();
  }

  /** Sets `values` if the demand is still in one of `from`; false when it was not (or is gone). */
  async updateIfIn(id: number, from: readonly number[], values: Updateable<OrderDemandTable>): Promise<boolean> {
    const done = await this.#db.updateTable('order_demands').set(values).where('id', '=', id).where('state', 'in', [...from]).executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  /** Deletes the demand if it is still in one of `from`; false when it was not. */
  async deleteIfIn(id: number, from: readonly number[]): Promise<boolean> {
    const done = await this.#db.deleteFrom('order_demands').where('id', '=', id).where('state', 'in', [...from]).executeTakeFirst();
    return Number(done.numDeletedRows) === 1;
  }
}
