import { sql, type Transaction } from 'kysely';
import type { RechargeOrder, UnpaidCouponOrder } from '../../protocol/api/campaigns.ts';
import { PaymentState, PurchaseType } from '../../protocol/index.ts';
import { formatAmount } from '../commerce/money.ts';
import { newOrderNo } from '../commerce/order-no.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { englishOf } from '../../protocol/index.ts';

/** Smallest recharge (devices-and-commerce section 5 and 9). */
export const MIN_RECHARGE = 50;
/** Price of one coupon in cents until an administrator sets another (ours; the spec shows no price). */
export const DEFAULT_UNIT_PRICE_CENTS = 100;

export const CouponMessage = englishOf({
  NotEnough: 'coupon.notEnough',
});

/** Balance, unit price and the total of recharge orders of one organisation. */
export async function couponInfo(db: Db, orgId: number): Promise<{ balance: number; unitPrice: number; orderTotal: number }> {
  const row = await db.selectFrom('push_coupons').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  const total = await db
    .selectFrom('push_coupon_ledger')
    .select((eb) => eb.fn.sum<number | string | null>('amount_cents').as('cents'))
    .where('org_id', '=', orgId)
    .where('reason', '=', 'recharge')
    .executeTakeFirstOrThrow();
  const unit = row?.unit_price_cents ?? DEFAULT_UNIT_PRICE_CENTS;
  return { balance: row?.balance ?? 0, unitPrice: unit / 100, orderTotal: Number(total.cents ?? 0) / 100 };
}

/** What {@link openRechargeOrder} answers (protocol/api/campaigns.ts). */
export type { RechargeOrder };

/**
 * Buying coupons opens a `push_ticket` order awaiting payment (devices-and-commerce section 9's purchase
 * types), priced at the organisation's unit price. Nothing is credited here: the coupons arrive when the
 * order is paid, through the one settlement every order goes through (commerce/order-routes.ts, settle),
 * which calls {@link creditRecharge}.
 */
export async function openRechargeOrder(db: Db, orgId: number, account: string, count: number, now: number): Promise<RechargeOrder> {
  const row = await db.selectFrom('push_coupons').select('unit_price_cents').where('org_id', '=', orgId).executeTakeFirst();
  const unitPrice = row?.unit_price_cents ?? DEFAULT_UNIT_PRICE_CENTS;
  const amount = unitPrice * count;
  const lines = [{ item: PurchaseType.PushTicket, quantity: count, unit: 'portion', unitPrice, total: amount }];
  const orderNo = newOrderNo(now);
  await db
    .insertInto('commerce_orders')
    .values({ order_no: orderNo, org_id: orgId, account, type: PurchaseType.PushTicket, trade_state: PaymentState.NotPay, amount, lines: JSON.stringify(lines), logistics: null, bill_month: null, created_at: now })
    .execute();
  return { orderNo, amount, amountText: formatAmount(amount), lines };
}

/**
 * Credits the coupons of a paid `push_ticket` order, inside the settlement's transaction (which marks the
 * order paid only once, so this runs once per order): a ledger row with the order and what was paid, and
 * the balance raised.
 */
export async function creditRecharge(trx: Transaction<Database>, orgId: number, count: number, orderNo: string, amountCents: number, now: number): Promise<void> {
  await trx.insertInto('push_coupons').values({ org_id: orgId, balance: 0, unit_price_cents: DEFAULT_UNIT_PRICE_CENTS, updated_at: now }).onConflict((oc) => oc.column('org_id').doNothing()).execute();
  await trx.insertInto('push_coupon_ledger').values({ org_id: orgId, delta: count, reason: 'recharge', order_no: orderNo, amount_cents: amountCents, campaign_id: null, sn: null, created_at: now }).execute();
  await trx.updateTable('push_coupons').set({ balance: sql`balance + ${count}`, updated_at: now }).where('org_id', '=', orgId).execute();
}

/** The organisation's coupon orders not paid yet (newest first), so the coupon page can pay them. */
export async function unpaidRechargeOrders(db: Db, orgId: number): Promise<UnpaidCouponOrder[]> {
  const rows = await db
    .selectFrom('commerce_orders')
    .select(['order_no', 'amount', 'lines', 'offline_pending', 'created_at'])
    .where('org_id', '=', orgId)
    .where('type', '=', PurchaseType.PushTicket)
    .where('trade_state', '=', PaymentState.NotPay)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
  return rows.map((r) => ({
    orderNo: r.order_no,
    amount: r.amount,
    count: (JSON.parse(r.lines) as { quantity: number }[])[0]?.quantity ?? 0,
    offlinePending: r.offline_pending === 1,
    createTime: Number(r.created_at),
  }));
}

/**
 * Charges one coupon for pushing a campaign's content to one device, exactly once: the ledger's unique
 * (campaign, device) row is the proof, so a retry, a resend or a restart finds it and charges nothing.
 * Returns false when the organisation has no coupon left.
 */
export async function chargeOnce(db: Db, orgId: number, campaignId: number, sn: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('push_coupon_ledger').select('id').where('campaign_id', '=', campaignId).where('sn', '=', sn).executeTakeFirst();
    if (existing) return true;
    const debited = await trx.updateTable('push_coupons').set({ balance: sql`balance - 1`, updated_at: now }).where('org_id', '=', orgId).where('balance', '>=', 1).executeTakeFirst();
    if (Number(debited.numUpdatedRows) !== 1) return false;
    await trx.insertInto('push_coupon_ledger').values({ org_id: orgId, delta: -1, reason: 'push', order_no: null, campaign_id: campaignId, sn, created_at: now }).execute();
    return true;
  });
}

/** Thrown inside a transaction to roll it back: the balance does not cover the batch. */
class ShortOfCoupons extends Error {
  constructor() {
    super(CouponMessage.NotEnough);
    this.name = 'ShortOfCoupons';
  }
}

/**
 * Charges one coupon per device for a batch of one campaign's devices, with the same exactly-once proof as
 * {@link chargeOnce} (the ledger's unique (campaign, device) row). Returns the devices that are charged
 * (now or before); the others found no coupon left. The balance row is what every push of an organisation
 * contends on, so it is locked once per batch and as briefly as possible: the usual case (enough coupons)
 * inserts the ledger rows first (a device charged before keeps its row and adds none) and then debits what
 * was inserted, all or nothing; a shortfall rolls that back and charges as many as the balance covers.
 */
export async function chargeMany(db: Db, orgId: number, campaignId: number, sns: readonly string[], now: number): Promise<Set<string>> {
  if (sns.length === 0) return new Set();
  // Sorted, so two batches that share devices take their ledger keys in the same order (no deadlock).
  const sorted = [...new Set(sns)].sort();
  const covered = await db
    .transaction()
    .execute(async (trx) => {
      let inserted = 0;
      for (let i = 0; i < sorted.length; i += 500) {
        const rows = await trx
          .insertInto('push_coupon_ledger')
          .values(sorted.slice(i, i + 500).map((sn) => ({ org_id: orgId, delta: -1, reason: 'push', order_no: null, campaign_id: campaignId, sn, created_at: now })))
          .onConflict((oc) => oc.columns(['campaign_id', 'sn']).doNothing())
          .returning('sn')
          .execute();
        inserted += rows.length;
      }
      if (inserted === 0) return true;
      const debited = await trx.updateTable('push_coupons').set({ balance: sql`balance - ${inserted}`, updated_at: now }).where('org_id', '=', orgId).where('balance', '>=', inserted).executeTakeFirst();
      if (Number(debited.numUpdatedRows) !== 1) throw new ShortOfCoupons();
      return true;
    })
    .catch((err: unknown) => {
      if (err instanceof ShortOfCoupons) return false;
      throw err;
    });
  if (covered) return new Set(sorted);
  return db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('push_coupon_ledger').select('sn').where('campaign_id', '=', campaignId).where('sn', 'in', sorted).execute();
    const charged = new Set(rows.map((r) => r.sn ?? ''));
    const fresh = sorted.filter((sn) => !charged.has(sn));
    if (fresh.length === 0) return charged;
    // Touching the row first locks it, so the balance read here is the balance debited below.
    const row = await trx.updateTable('push_coupons').set({ updated_at: now }).where('org_id', '=', orgId).returning('balance').executeTakeFirst();
    const take = fresh.slice(0, Math.max(0, row?.balance ?? 0));
    if (take.length === 0) return charged;
    await trx.updateTable('push_coupons').set({ balance: sql`balance - ${take.length}`, updated_at: now }).where('org_id', '=', orgId).execute();
    for (let i = 0; i < take.length; i += 500) {
      await trx
        .insertInto('push_coupon_ledger')
        .values(take.slice(i, i + 500).map((sn) => ({ org_id: orgId, delta: -1, reason: 'push', order_no: null, campaign_id: campaignId, sn, created_at: now })))
        .execute();
    }
    for (const sn of take) charged.add(sn);
    return charged;
  });
}

/** An organisation's coupon ledger, newest first. */
export async function couponLedger(db: Db, orgId: number, limit: number, offset: number) {
  const q = db.selectFrom('push_coupon_ledger').where('org_id', '=', orgId);
  const [{ total }, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
    q.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
  ]);
  return { total: Number(total), rows };
}
