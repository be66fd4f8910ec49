// Queries of orders and bills (server/commerce/order-routes.ts checks and answers with them): the list, the
// platform organisation, the cards a month's fee is due for, settling a paid order and what it delivers.
import type { Insertable, Selectable, Transaction } from 'kysely';
import type { OrderInvoice } from '../../protocol/api/invoices.ts';
import type { OrderLine, OrderListQuery, OrderLogistics, OrderView } from '../../protocol/api/commerce.ts';
import type { Page } from '../../protocol/api/devices.ts';
import { JuxinCardStatus, PaymentState } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import { GB, TRAFFIC_VALIDITY_MS } from '../cards/card-codes.ts';
import { DAY_MS } from '../carrier/simulated-carrier.ts';
import type { Db } from '../db/database.ts';
import type { CommerceOrderTable, Database } from '../db/schema.ts';
import { creditRecharge } from '../campaigns/coupons.ts';
import { CARD_PURCHASE_FAMILY, deliverPurchasedCards } from '../cards/purchase.ts';
import { emitWebhook } from '../webhooks/emit.ts';
import { generateLicences } from './licence-repository.ts';

const CHINA_OFFSET_MS = 8 * 3_600_000;

export type OrderRow = Selectable<CommerceOrderTable>;

/** Start and end (epoch ms) of a month in China time, from "YYYY-MM". */
export function monthRange(month: string): { start: number; end: number } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return { start: Date.UTC(y, m - 1, 1) - CHINA_OFFSET_MS, end: Date.UTC(y, m, 1) - CHINA_OFFSET_MS };
}

/** One line of an order as stored (a traffic line names its card). */
export type Line = OrderLine;

/** An order's stored invoice JSON as the list answers it; rows from before the workflow count as requested. */
export function invoiceView(text: string | null): OrderInvoice | null {
  if (!text) return null;
  const v = JSON.parse(text) as Partial<OrderInvoice>;
  return {
    type: v.type === 'VAT' ? 'VAT' : 'PLAIN',
    header: v.header ?? '',
    taxCode: v.taxCode ?? '',
    bank: v.bank ?? '',
    bankAccount: v.bankAccount ?? '',
    address: v.address ?? '',
    telephone: v.telephone ?? '',
    state: v.state === 'issued' ? 'issued' : 'requested',
    requestedAt: v.requestedAt ?? null,
    number: v.number ?? null,
    issuedAt: v.issuedAt ?? null,
    amount: v.amount ?? null,
  };
}

/** The platform organisation (the root): its accounts are platform staff. */
export async function platformOrgId(db: Db): Promise<number | undefined> {
  const root = await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).orderBy('id').executeTakeFirst();
  return root?.id;
}

/** What a paid order delivers: traffic raises the cards' quota and keeps it valid 3 years; renewals extend expiry. */
export async function deliver(trx: Transaction<Database>, type: string, lines: readonly Line[], now: number): Promise<void> {
  for (const line of lines) {
    if (!line.iccid) continue;
    const card = await trx.selectFrom('sim_cards').select(['id', 'quota_bytes', 'expire_time']).where('iccid', '=', line.iccid).executeTakeFirst();
    if (!card) continue;
    if (type === 'flow') {
      await trx.updateTable('sim_cards').set({ quota_bytes: card.quota_bytes + line.quantity * GB, expire_time: Math.max(card.expire_time, now + TRAFFIC_VALIDITY_MS) }).where('id', '=', card.id).execute();
    } else if (type === 'zxj_flow') {
      await trx.updateTable('sim_cards').set({ expire_time: Math.max(card.expire_time, now) + line.quantity * 30 * DAY_MS }).where('id', '=', card.id).execute();
    }
  }
}

export async function listOrders(db: Db, caller: Caller, q: OrderListQuery, types: readonly string[] | undefined): Promise<Page<OrderView>> {
  const scope = [...caller.scope];
  const pageNum = Number(q.pageNum ?? '1');
  const pageSize = Number(q.pageSize ?? '10');
  let query = db.selectFrom('commerce_orders').where('org_id', 'in', scope);
  if (types) query = query.where('type', 'in', types);
  if (q.type) query = query.where('type', '=', q.type);
  if (q.tradeState) query = query.where('trade_state', '=', q.tradeState);
  if (q.orderNo?.trim()) query = query.where('order_no', '=', q.orderNo.trim());
  const total = Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
  return {
    total,
    list: rows.map((r) => ({
      orderNo: r.order_no,
      orgId: r.org_id,
      account: r.account,
      type: r.type,
      tradeState: r.trade_state as OrderView['tradeState'],
      payMethod: r.pay_method as OrderView['payMethod'],
      offlinePending: r.offline_pending === 1,
      amount: r.amount,
      realAmount: r.real_amount,
      invoiced: r.invoiced === 1,
      invoice: invoiceView(r.invoice),
      lines: JSON.parse(r.lines) as OrderLine[],
      logistics: r.logistics ? (JSON.parse(r.logistics) as OrderLogistics) : null,
      billMonth: r.bill_month,
      createdAt: r.created_at,
      paidAt: r.paid_at,
      confirmedBy: r.confirmed_by,
    })),
  };
}

/** A settlement of an order: how it was paid, how much arrived, who confirmed it, and the provider's trade. */
export interface Settlement {
  readonly orderNo: string;
  readonly method: string;
  readonly realAmount: number;
  readonly by: string;
  readonly tradeNo?: string | undefined;
  readonly now: number;
}

/** Orders and bills, and the cards their monthly fees are counted on. */
export class OrderRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  list(caller: Caller, q: OrderListQuery, types: readonly string[] | undefined): Promise<Page<OrderView>> {
    return listOrders(this.#db, caller, q, types);
  }

  platformOrgId(): Promise<number | undefined> {
    return platformOrgId(this.#db);
  }

  findByNo(orderNo: string): Promise<OrderRow | undefined> {
    return this.#db.selectFrom('commerce_orders').selectAll().where('order_no', '=', orderNo).executeTakeFirst();
  }

  /**
   * The cards a month's function fee is due for: link cards activated before the month ends, valid into it and
   * not cancelled; juxin cards the same, not cancelled at the carrier.
   */
  #validCards(orgId: number, month: string, family: 'link' | 'juxin') {
    const { start, end } = monthRange(month);
    const q = this.#db
      .selectFrom('sim_cards')
      .where('org_id', '=', orgId)
      .where('family', '=', family)
      .where('activated_at', 'is not', null)
      .where('activated_at', '<', end)
      .where('expire_time', '>', start);
    return family === 'link' ? q.where('card_status', '<>', 50) : q.where('juxin_status', '<>', JuxinCardStatus.Cancelled);
  }

  async validCardCount(orgId: number, month: string, family: 'link' | 'juxin' = 'link'): Promise<number> {
    return Number((await this.#validCards(orgId, month, family).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  }

  /** A page of the link cards a month's fee is due for, by ICCID. */
  async validCardPage(orgId: number, month: string, pageNum: number, pageSize: number) {
    const q = this.#validCards(orgId, month, 'link');
    const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const rows = await q.select(['iccid', 'msisdn', 'carrier', 'card_status', 'activated_at', 'expire_time']).orderBy('iccid').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
    return { total, rows };
  }

  /** An organisation's monthly-fee orders that are not closed. */
  monthlyFeeOrders(orgId: number): Promise<{ order_no: string; bill_month: string | null; trade_state: string }[]> {
    return this.#db
      .selectFrom('commerce_orders')
      .select(['order_no', 'bill_month', 'trade_state'])
      .where('org_id', '=', orgId)
      .where('type', '=', 'monthly_function_fee')
      .where('trade_state', '<>', PaymentState.Closed)
      .execute();
  }

  cardsByIccid(iccids: readonly string[]) {
    return this.#db.selectFrom('sim_cards').select(['iccid', 'family', 'org_id', 'juxin_status']).where('iccid', 'in', iccids).execute();
  }

  /** Whether an organisation has an order of `type` for `month` that is not closed. */
  async hasOpenBill(orgId: number, type: string, month: string): Promise<boolean> {
    const open = await this.#db.selectFrom('commerce_orders').select('id').where('org_id', '=', orgId).where('type', '=', type).where('bill_month', '=', month).where('trade_state', '<>', PaymentState.Closed).executeTakeFirst();
    return open !== undefined;
  }

  async insert(order: Insertable<CommerceOrderTable>): Promise<void> {
    await this.#db.insertInto('commerce_orders').values(order).execute();
  }

  /** The payer says they transferred `amount`: the order waits for staff to confirm it. */
  async markOfflinePending(id: number, amount: number): Promise<void> {
    await this.#db.updateTable('commerce_orders').set({ pay_method: 'offline', offline_pending: 1, real_amount: amount }).where('id', '=', id).execute();
  }

  async markAlipay(id: number, tradeNo: string): Promise<void> {
    await this.#db.updateTable('commerce_orders').set({ pay_method: 'alipay', trade_no: tradeNo, offline_pending: 0 }).where('id', '=', id).execute();
  }

  paymentOf(orderNo: string): Promise<{ amount: number; trade_no: string | null } | undefined> {
    return this.#db.selectFrom('commerce_orders').select(['amount', 'trade_no']).where('order_no', '=', orderNo).executeTakeFirst();
  }

  /** Closes an unpaid order; false when it was not unpaid. */
  async close(id: number, now: number): Promise<boolean> {
    const closed = await this.#db
      .updateTable('commerce_orders')
      .set({ trade_state: PaymentState.Closed, closed_at: now, offline_pending: 0 })
      .where('id', '=', id)
      .where('trade_state', '=', PaymentState.NotPay)
      .executeTakeFirst();
    return Number(closed.numUpdatedRows) === 1;
  }

  invoiceCandidates(orderNos: readonly string[]): Promise<{ id: number; org_id: number; trade_state: string; invoiced: number }[]> {
    return this.#db.selectFrom('commerce_orders').select(['id', 'org_id', 'trade_state', 'invoiced']).where('order_no', 'in', orderNos).execute();
  }

  /** The orders not yet invoiced of `ids` ask for `invoice` (its JSON text). */
  async requestInvoice(ids: readonly number[], invoice: string): Promise<void> {
    await this.#db.updateTable('commerce_orders').set({ invoiced: 1, invoice }).where('id', 'in', ids).where('invoiced', '=', 0).execute();
  }

  /** Replaces the logistics JSON if it is still `current` (null stored as ''); false when it changed. */
  async replaceLogistics(id: number, current: string | null, next: string): Promise<boolean> {
    const done = await this.#db.updateTable('commerce_orders').set({ logistics: next }).where('id', '=', id).where('logistics', '=', current ?? '').executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  /** Replaces the invoice JSON if it is still `current` (null stored as ''); false when it changed. */
  async replaceInvoice(id: number, current: string | null, next: string): Promise<boolean> {
    const done = await this.#db.updateTable('commerce_orders').set({ invoice: next }).where('id', '=', id).where('invoice', '=', current ?? '').executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  }

  /** Marks an order paid and delivers what it bought, once: a second settlement of the same order does nothing (false). */
  settle(s: Settlement): Promise<boolean> {
    const db = this.#db;
    return db.transaction().execute(async (trx) => {
      const { now } = s;
      const done = await trx
        .updateTable('commerce_orders')
        .set({ trade_state: PaymentState.Success, pay_method: s.method, real_amount: s.realAmount, paid_at: now, offline_pending: 0, confirmed_by: s.by, ...(s.tradeNo ? { trade_no: s.tradeNo } : {}) })
        .where('order_no', '=', s.orderNo)
        .where('trade_state', '=', PaymentState.NotPay)
        .returningAll()
        .executeTakeFirst();
      if (!done) return false;
      const lines = JSON.parse(done.lines) as Line[];
      if (done.type === 'iso_bus_activation_code') await generateLicences(trx, done.org_id, lines[0]?.quantity ?? 0, done.order_no, now, done.order_no);
      // Push coupons are credited here and nowhere else: buying them only opens the order (campaigns/coupons.ts).
      else if (done.type === 'push_ticket') await creditRecharge(trx, done.org_id, lines[0]?.quantity ?? 0, done.order_no, done.amount, now);
      else if (CARD_PURCHASE_FAMILY[done.type] && done.logistics) {
        // A card purchase delivers: the cards join the buyer's inventory now, and the order waits to ship.
        const logistics = JSON.parse(done.logistics) as Record<string, unknown>;
        const iccids = await deliverPurchasedCards(trx, done.org_id, done.type, lines[0]?.quantity ?? 0, String(logistics.simType ?? ''), now);
        await trx.updateTable('commerce_orders').set({ logistics: JSON.stringify({ ...logistics, shipping: 'to_ship', iccids }) }).where('id', '=', done.id).execute();
      } else await deliver(trx, done.type, lines, now);
      // The transaction's last step; once per order, as the conditional update above is (issue 23 webhooks).
      emitWebhook(db, done.org_id, 'order.paid', { orderNo: done.order_no, type: done.type, amount: done.amount, method: s.method });
      return true;
    });
  }
}
