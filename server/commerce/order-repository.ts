// Queries of orders and bills (server/commerce/order-routes.ts answers with them): the list, the platform
// organisation, and what a paid order delivers.
import type { Transaction } from 'kysely';
import type { OrderInvoice } from '../../protocol/api/invoices.ts';
import type { OrderLine, OrderListQuery, OrderLogistics, OrderView } from '../../protocol/api/commerce.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { Caller } from '../accounts/caller.ts';
import { GB, TRAFFIC_VALIDITY_MS } from '../cards/card-codes.ts';
import { DAY_MS } from '../carrier/simulated-carrier.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';

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
