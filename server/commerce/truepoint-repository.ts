// Queries of true-point service accounts and their equipment (server/commerce/truepoint-routes.ts checks and
// answers with them), and the demo accounts the seed gives each organisation.
import { randomBytes } from 'node:crypto';
import type { Insertable, Selectable } from 'kysely';
import { TruePointAccountState, TruePointServiceState } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { TruePointAccountTable } from '../db/schema.ts';

export const DAY_MS = 86_400_000;

export type TruePointAccountRow = Selectable<TruePointAccountTable>;

/** Seeds a few service accounts with equipment for an organisation, so the hidden true-point pages have data. */
export async function seedTruePoint(db: Db, orgId: number, now: number): Promise<void> {
  const accounts = [
    { precision: 'CM', charge: 'yearly', days: 365, state: TruePointServiceState.InService, mode: 2, activated: now - 40 * DAY_MS },
    { precision: 'DM', charge: 'monthly', days: 30, state: TruePointServiceState.ToBeActivated, mode: 1, activated: null },
    { precision: 'CM', charge: 'trial', days: 7, state: TruePointServiceState.InService, mode: 1, activated: now - 10 * DAY_MS },
  ];
  for (const [i, a] of accounts.entries()) {
    const row = await db
      .insertInto('truepoint_accounts')
      .values({
        org_id: orgId,
        account_no: `tp${orgId}${String(i + 1).padStart(4, '0')}${randomBytes(2).toString('hex')}`,
        password: randomBytes(6).toString('base64url'),
        instance_id: `inst-${randomBytes(4).toString('hex')}`,
        precision: a.precision,
        charge_type: a.charge,
        duration_days: a.days,
        service_state: a.state,
        activation_mode: a.mode,
        account_state: TruePointAccountState.Enabled,
        times: a.activated ? 1 : 0,
        activated_at: a.activated,
        expire_time: a.activated ? a.activated + a.days * DAY_MS : null,
        created_at: now - 60 * DAY_MS,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (a.activated) {
      await db
        .insertInto('truepoint_equipment')
        .values([0, 1].map((k) => ({ account_id: row.id, equipment_id: `RTK${orgId}${i}${k}${randomBytes(2).toString('hex').toUpperCase()}`, first_used_at: (a.activated ?? now) + k * DAY_MS, created_at: now })))
        .execute();
    }
  }
}

/** Service accounts and the equipment using them. */
export class TruePointRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Accounts of `scope` in service past their expiry become expired. */
  async expireDue(scope: readonly number[], now: number): Promise<void> {
    await this.#db
      .updateTable('truepoint_accounts')
      .set({ service_state: TruePointServiceState.Expired })
      .where('org_id', 'in', scope)
      .where('service_state', '=', TruePointServiceState.InService)
      .where('expire_time', '<=', now)
      .execute();
  }

  find(id: number): Promise<TruePointAccountRow | undefined> {
    return this.#db.selectFrom('truepoint_accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async accountNoTaken(accountNo: string): Promise<boolean> {
    return (await this.#db.selectFrom('truepoint_accounts').select('id').where('account_no', '=', accountNo).executeTakeFirst()) !== undefined;
  }

  async create(account: Insertable<TruePointAccountTable>): Promise<number> {
    return (await this.#db.insertInto('truepoint_accounts').values(account).returning('id').executeTakeFirstOrThrow()).id;
  }

  /** A page of the accounts of `scope`, newest first. */
  async page(scope: readonly number[], pageNum: number, pageSize: number): Promise<{ total: number; rows: TruePointAccountRow[] }> {
    const q = this.#db.selectFrom('truepoint_accounts').where('org_id', 'in', scope);
    const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
    return { total, rows };
  }

  /** Puts an enabled account waiting for activation in service from `now`; false when it was not waiting. */
  async activate(row: TruePointAccountRow, now: number): Promise<boolean> {
    const done = await this.#db
      .updateTable('truepoint_accounts')
      .set({ service_state: TruePointServiceState.InService, activated_at: now, expire_time: now + row.duration_days * DAY_MS, times: row.times + 1 })
      .where('id', '=', row.id)
      .where('service_state', '=', TruePointServiceState.ToBeActivated)
      .where('account_state', '=', TruePointAccountState.Enabled)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  async setAccountState(id: number, state: number): Promise<void> {
    await this.#db.updateTable('truepoint_accounts').set({ account_state: state }).where('id', '=', id).execute();
  }

  /** Equipment of the accounts of `scope` (of one account when given), at most 1000, in id order. */
  equipment(scope: readonly number[], accountId: number | undefined) {
    let q = this.#db
      .selectFrom('truepoint_equipment')
      .innerJoin('truepoint_accounts', 'truepoint_accounts.id', 'truepoint_equipment.account_id')
      .where('truepoint_accounts.org_id', 'in', scope);
    if (accountId) q = q.where('truepoint_accounts.id', '=', accountId);
    return q
      .select(['truepoint_equipment.id', 'equipment_id', 'disabled', 'first_used_at', 'account_no', 'service_state'])
      .orderBy('truepoint_equipment.id')
      .limit(1000)
      .execute();
  }

  /** One piece of equipment with its account's organisation. */
  findEquipment(id: number): Promise<{ id: number; org_id: number } | undefined> {
    return this.#db
      .selectFrom('truepoint_equipment')
      .innerJoin('truepoint_accounts', 'truepoint_accounts.id', 'truepoint_equipment.account_id')
      .select(['truepoint_equipment.id', 'truepoint_accounts.org_id'])
      .where('truepoint_equipment.id', '=', id)
      .executeTakeFirst();
  }

  async setEquipmentDisabled(id: number, disabled: boolean): Promise<void> {
    await this.#db.updateTable('truepoint_equipment').set({ disabled: disabled ? 1 : 0 }).where('id', '=', id).execute();
  }
}
