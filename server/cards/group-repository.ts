// Queries of directional groups and their addresses (server/cards/group-routes.ts answers with them).
import type { Insertable, Selectable } from 'kysely';
import { GroupAddressState } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { DirectionAddressTable, DirectionGroupTable } from '../db/schema.ts';
import { containsIgnoringCase } from '../db/text-search.ts';

export type DirectionGroupRow = Selectable<DirectionGroupTable>;
export type DirectionAddressRow = Selectable<DirectionAddressTable>;

/** Directional groups (devices-and-commerce sections 3-5) and the addresses each holds. */
export class DirectionGroupRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Pending address changes the carrier has applied by `now`: adding ones become added, removing ones go. */
  async settle(groupIds: readonly number[], now: number): Promise<void> {
    if (groupIds.length === 0) return;
    await this.#db.updateTable('direction_addresses').set({ state: GroupAddressState.Added }).where('group_id', 'in', groupIds).where('state', '=', GroupAddressState.Adding).where('effective_at', '<=', now).execute();
    await this.#db.deleteFrom('direction_addresses').where('group_id', 'in', groupIds).where('state', '=', GroupAddressState.Removing).where('effective_at', '<=', now).execute();
  }

  find(id: number): Promise<DirectionGroupRow | undefined> {
    return this.#db.selectFrom('direction_groups').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A page of the groups of `scope`, newest first, optionally those whose name contains `name`. */
  async page(scope: readonly number[], name: string | undefined, pageNum: number, pageSize: number): Promise<{ total: number; rows: DirectionGroupRow[] }> {
    let q = this.#db.selectFrom('direction_groups').where('org_id', 'in', scope);
    if (name) q = q.where(containsIgnoringCase('name', name));
    const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
    return { total, rows };
  }

  /** How many addresses of each source, and how many cards, each of the groups holds. */
  async counts(ids: readonly number[]): Promise<{ addresses: { group_id: number; source: string; n: number }[]; cards: { group_id: number | null; n: number }[] }> {
    if (ids.length === 0) return { addresses: [], cards: [] };
    const addresses = await this.#db.selectFrom('direction_addresses').select(['group_id', 'source', (eb) => eb.fn.countAll<number>().as('n')]).where('group_id', 'in', ids).groupBy(['group_id', 'source']).execute();
    const cards = await this.#db.selectFrom('sim_cards').select(['group_id', (eb) => eb.fn.countAll<number>().as('n')]).where('group_id', 'in', ids).groupBy('group_id').execute();
    return { addresses, cards };
  }

  async create(group: { orgId: number; name: string; remark: string; createdAt: number }): Promise<number> {
    const row = await this.#db.insertInto('direction_groups').values({ org_id: group.orgId, name: group.name, remark: group.remark, created_at: group.createdAt }).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  async update(id: number, name: string, remark: string): Promise<void> {
    await this.#db.updateTable('direction_groups').set({ name, remark }).where('id', '=', id).execute();
  }

  async hasCards(id: number): Promise<boolean> {
    return (await this.#db.selectFrom('sim_cards').select('id').where('group_id', '=', id).executeTakeFirst()) !== undefined;
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('direction_groups').where('id', '=', id).execute();
  }

  /** A group's addresses, newest first. */
  addresses(groupId: number): Promise<DirectionAddressRow[]> {
    return this.#db.selectFrom('direction_addresses').selectAll().where('group_id', '=', groupId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  }

  /** What the duplicate and count checks of a new address read. */
  addressKeys(groupId: number): Promise<{ address: string; source: string; state: number }[]> {
    return this.#db.selectFrom('direction_addresses').select(['address', 'source', 'state']).where('group_id', '=', groupId).execute();
  }

  async addAddress(address: Insertable<DirectionAddressTable>): Promise<number> {
    return (await this.#db.insertInto('direction_addresses').values(address).returning('id').executeTakeFirstOrThrow()).id;
  }

  findAddress(id: number): Promise<DirectionAddressRow | undefined> {
    return this.#db.selectFrom('direction_addresses').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async addressState(id: number): Promise<number | undefined> {
    return (await this.#db.selectFrom('direction_addresses').select('state').where('id', '=', id).executeTakeFirst())?.state;
  }

  async deleteAddress(id: number): Promise<void> {
    await this.#db.deleteFrom('direction_addresses').where('id', '=', id).execute();
  }

  async markRemoving(id: number, effectiveAt: number): Promise<void> {
    await this.#db.updateTable('direction_addresses').set({ state: GroupAddressState.Removing, effective_at: effectiveAt }).where('id', '=', id).execute();
  }
}
