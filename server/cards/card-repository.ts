import type { Selectable } from 'kysely';
import type {
  CarrierCode,
  JuxinCardStatusCode,
  RealStatusCode,
  SpringCardStatusCode,
  StatusChangeReasonCode,
} from '../../protocol/index.ts';
import type { CardView } from '../../protocol/index.ts';
import type { CardEvent } from '../../protocol/api/cards.ts';
import type { CardFamilyCode, CarrierCard, CarrierProvider } from '../carrier/carrier.ts';
import { isActive, statusText, usageAt } from '../carrier/simulated-carrier.ts';
import type { Db } from '../db/database.ts';
import type { SimCardTable } from '../db/schema.ts';
import { containsIgnoringCase } from '../db/text-search.ts';

export type CardRow = Selectable<SimCardTable>;

/** The carrier-side facts of a stored card. */
export function carrierCardOf(row: CardRow): CarrierCard {
  return {
    iccid: row.iccid,
    family: row.family as CardFamilyCode,
    carrier: row.carrier as CarrierCode,
    springStatus: row.spring_status as SpringCardStatusCode | null,
    cardStatus: row.card_status,
    realStatus: row.real_status as RealStatusCode | null,
    juxinStatus: row.juxin_status as JuxinCardStatusCode | null,
    statusReason: row.status_reason as StatusChangeReasonCode,
    statusChangedAt: row.status_changed_at,
    usedBytes: row.used_bytes,
    usageSince: row.usage_since,
    dailyRateBytes: row.daily_rate_bytes,
    quotaBytes: row.quota_bytes,
    expireTime: row.expire_time,
  };
}

/** A card as the list and detail calls answer it. */
export type { CardView };

export function cardView(row: CardRow, now: number): CardView {
  return {
    id: row.id,
    orgId: row.org_id,
    family: row.family as CardFamilyCode,
    iccid: row.iccid,
    msisdn: row.msisdn,
    imsi: row.imsi,
    carrier: row.carrier,
    cardType: row.card_type,
    comboType: row.combo_type,
    springStatus: row.spring_status,
    cardStatus: row.card_status,
    realStatus: row.real_status,
    juxinStatus: row.juxin_status,
    statusReason: row.status_reason,
    statusChangedAt: row.status_changed_at,
    usedBytes: usageAt(carrierCardOf(row), now),
    quotaBytes: row.quota_bytes,
    expireTime: row.expire_time,
    apn: row.apn,
    certification: row.certification,
    formFactor: row.form_factor,
    groupId: row.group_id,
    model: row.model,
    deviceSn: row.device_sn,
    activatedAt: row.activated_at,
    createdAt: row.created_at,
  };
}

export interface CardFilter {
  readonly family: CardFamilyCode;
  readonly scope: readonly number[];
  readonly iccid?: string | undefined;
  readonly msisdn?: string | undefined;
  readonly carrier?: string | undefined;
  readonly comboType?: string | undefined;
  readonly status?: string | undefined;
  readonly realStatus?: number | undefined;
  readonly groupId?: number | undefined;
}

/** The stored fields a carrier answer changes. */
function updateOf(card: CarrierCard) {
  return {
    spring_status: card.springStatus,
    card_status: card.cardStatus,
    real_status: card.realStatus,
    juxin_status: card.juxinStatus,
    status_reason: card.statusReason,
    status_changed_at: card.statusChangedAt,
    used_bytes: card.usedBytes,
    usage_since: card.usageSince,
    quota_bytes: card.quotaBytes,
    expire_time: card.expireTime,
  };
}

export class CardRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Stores what the carrier says about the cards that can change on their own (active ones, and link cards
   * waiting for their first data record), recording each status change with the carrier's reason.
   */
  async sync(carrier: CarrierProvider, scope: readonly number[], family?: CardFamilyCode): Promise<void> {
    if (scope.length === 0) return;
    let q = this.#db.selectFrom('sim_cards').selectAll().where('org_id', 'in', scope).where('daily_rate_bytes', '>', 0);
    if (family) q = q.where('family', '=', family);
    for (const row of await q.execute()) {
      const before = carrierCardOf(row);
      if (!isActive(before) && !(before.family === 'link' && before.cardStatus === 20)) continue;
      const after = await carrier.refresh(before);
      if (statusText(after) !== statusText(before)) await this.store(row, after, '');
    }
  }

  /** Writes a carrier answer and, when the status changed, a history row. */
  async store(row: CardRow, card: CarrierCard, account: string): Promise<CardRow> {
    return this.#db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('sim_cards').set(updateOf(card)).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
      const from = statusText(carrierCardOf(row));
      const to = statusText(card);
      if (from !== to) {
        await trx
          .insertInto('sim_card_events')
          .values({ card_id: row.id, at: card.statusChangedAt, from_status: from, to_status: to, reason: card.statusReason, account })
          .execute();
      }
      return updated;
    });
  }

  async page(filter: CardFilter, pageNum: number, pageSize: number): Promise<{ total: number; rows: CardRow[] }> {
    if (filter.scope.length === 0) return { total: 0, rows: [] };
    let q = this.#db.selectFrom('sim_cards').where('org_id', 'in', filter.scope).where('family', '=', filter.family);
    if (filter.iccid) q = q.where(containsIgnoringCase('iccid', filter.iccid));
    if (filter.msisdn) q = q.where(containsIgnoringCase('msisdn', filter.msisdn));
    if (filter.carrier) q = q.where('carrier', '=', filter.carrier);
    if (filter.comboType) q = q.where('combo_type', '=', filter.comboType);
    if (filter.groupId !== undefined) q = q.where('group_id', '=', filter.groupId);
    if (filter.realStatus !== undefined) q = q.where('real_status', '=', filter.realStatus);
    if (filter.status !== undefined) {
      if (filter.family === 'spring') q = q.where('spring_status', '=', filter.status);
      else if (filter.family === 'link') q = q.where('card_status', '=', Number(filter.status));
      else q = q.where('juxin_status', '=', Number(filter.status));
    }
    const counted = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .offset((pageNum - 1) * pageSize)
      .execute();
    return { total: Number(counted.n), rows };
  }

  async byIccid(iccid: string, scope: readonly number[]): Promise<CardRow | undefined> {
    if (scope.length === 0) return undefined;
    return this.#db.selectFrom('sim_cards').selectAll().where('iccid', '=', iccid).where('org_id', 'in', scope).executeTakeFirst();
  }

  async events(cardId: number): Promise<CardEvent[]> {
    const rows = await this.#db.selectFrom('sim_card_events').selectAll().where('card_id', '=', cardId).orderBy('at', 'desc').orderBy('id', 'desc').limit(50).execute();
    return rows.map((r) => ({ at: r.at, fromStatus: r.from_status, toStatus: r.to_status, reason: r.reason, account: r.account }));
  }

  /**
   * Counts one stop or restart against the card's daily allowance, atomically on both databases: the row
   * is updated only while today's count is below `limit`. False when the allowance is used up.
   */
  async takeAction(cardId: number, day: number, limit: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('sim_cards')
      .set((eb) => ({
        action_count: eb.case().when('action_day', '=', day).then(eb('action_count', '+', 1)).else(1).end(),
        action_day: day,
      }))
      .where('id', '=', cardId)
      .where((eb) => eb.or([eb('action_day', '<>', day), eb('action_count', '<', limit)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Gives back an allowance taken for an action the carrier then refused. */
  async returnAction(cardId: number, day: number): Promise<void> {
    await this.#db
      .updateTable('sim_cards')
      .set((eb) => ({ action_count: eb('action_count', '-', 1) }))
      .where('id', '=', cardId)
      .where('action_day', '=', day)
      .where('action_count', '>', 0)
      .execute();
  }

  /** The name of a card's directional group, or '' when the group is gone. */
  async groupName(groupId: number): Promise<string> {
    const group = await this.#db.selectFrom('direction_groups').select('name').where('id', '=', groupId).executeTakeFirst();
    return group?.name ?? '';
  }

  /** True when the group holds an address the carrier has applied by `now`. */
  async hasWorkingAddress(groupId: number, now: number): Promise<boolean> {
    const added = await this.#db.selectFrom('direction_addresses').select('id').where('group_id', '=', groupId).where('state', '=', 500).where('effective_at', '<=', now).executeTakeFirst();
    return added !== undefined;
  }

  /** True when the directional group belongs to one of the organisations in `scope`. */
  async groupInScope(groupId: number, scope: readonly number[]): Promise<boolean> {
    if (scope.length === 0) return false;
    const group = await this.#db.selectFrom('direction_groups').select('id').where('id', '=', groupId).where('org_id', 'in', scope).executeTakeFirst();
    return group !== undefined;
  }

  /** Binds a card to a directional group, or unbinds it (null). */
  async setGroup(cardId: number, groupId: number | null): Promise<void> {
    await this.#db.updateTable('sim_cards').set({ group_id: groupId }).where('id', '=', cardId).execute();
  }
}
