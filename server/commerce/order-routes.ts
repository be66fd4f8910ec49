import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Clock, englishOf, JuxinCardStatus, PaymentState, ruleMessageKey } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText } from '../http/validation.ts';
import { formatAmount, lineTotal, parseAmount, Price } from './money.ts';
import { checkPhone } from '../../protocol/index.ts';
import { newOrderNo } from './order-no.ts';
import { invoiceView, type Line, monthRange, OrderRepository } from './order-repository.ts';
import type { PaymentProvider } from './payment.ts';
import { SandboxPayment } from './payment.ts';
import * as c from '../../protocol/api/commerce.ts';
import type { ShippingState } from '../cards/purchase.ts';
import { INVOICE_FIELDS, INVOICE_NO, invoiceFieldProblem, type OrderInvoice } from '../../protocol/api/invoices.ts';

export const OrderMessage = englishOf({
  NotFound: 'order.notFound',
  PositiveInteger: 'order.positiveInteger',
  Phone: 'identity.phone',
  NoCards: 'order.noCards',
  CardNotFound: 'order.cardNotFound',
  WrongFamily: 'order.wrongFamily',
  NotPayable: 'order.notPayable',
  AlreadyBilled: 'order.alreadyBilled',
  NoValidCards: 'order.noValidCards',
  FutureMonth: 'order.futureMonth',
  TransferMismatch: 'order.transferMismatch',
  NotOffline: 'order.notOffline',
  StaffOnly: 'order.staffOnly',
  NotSandbox: 'order.notSandbox',
  NoOnlinePayment: 'order.noOnlinePayment',
  PaymentAdminOnly: 'order.paymentAdminOnly',
  NotInvoiceable: 'order.notInvoiceable',
  VatFields: 'order.vatFields',
  TaxCode: 'order.taxCode',
  BankAccount: 'order.bankAccount',
  InvoiceTelephone: 'order.invoiceTelephone',
  InvoiceStaffOnly: 'order.invoiceStaffOnly',
  NotRequested: 'order.invoiceNotRequested',
  InvoiceNo: 'order.invoiceNo',
  CardCancelled: 'order.cardCancelled',
  ShippingStep: 'order.shippingStep',
  ShipStaffOnly: 'order.shipStaffOnly',
  TrackingNo: 'order.trackingNo',
});

/** The company account offline transfers go to (shown on the pay-data screen, devices-and-commerce section 9). */
export const COMPANY_BANK = {
  company: 'Device Control Center Technology Co., Ltd.',
  bank: 'China Merchants Bank, Shenzhen Science Park Branch',
  account: '7559 2026 1122 0001',
} as const;

/** Order types of the link-card bills screen; the orders screen lists every type. */
export const BILL_TYPES = ['flow', 'monthly_function_fee', 'unify_sim', 'sim'] as const;

const CHINA_OFFSET_MS = 8 * 3_600_000;

/**
 * Key of completing sandbox payments (catalogued, ours: the spec names no payment-administration key).
 * Settling a sandbox trade stands in for money arriving, so it is the platform's to do, never the payer's.
 */
export const PAYMENT_ADMIN_PERMISSION = 'payment_admin';

export interface OrderRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  /**
   * The online payment provider; undefined when there is none (PAYMENT_SANDBOX off and no real adapter),
   * and then orders are paid by offline transfer only.
   */
  readonly payment: PaymentProvider | undefined;
}

export { monthRange };

function positive(n: number | undefined): number {
  if (n === undefined || !Number.isSafeInteger(n) || n <= 0 || n > 100_000) throw new ApiError(ApiCode.BadRequest, 'order.positiveInteger');
  return n;
}

/** Orders, bills and payment (devices-and-commerce sections 3, 4 and 9); paths in docs/DECISIONS.md. */
export async function orderRoutes(app: FastifyInstance, deps: OrderRouteDeps): Promise<void> {
  const { clock, payment } = deps;
  const orders = new OrderRepository(deps.db);
  // Requests typed from the contract's schemas (protocol/api/commerce.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const orderInScope = async (orderNo: string, caller: Caller) => {
    const row = await orders.findByNo(orderNo);
    if (!row || !caller.scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'order.notFound');
    return row;
  };

  /** Platform staff holding the payment-admin key: the only ones who may say a sandbox trade was paid. */
  const mayCompleteSandbox = async (caller: Caller) => caller.permissions.has(PAYMENT_ADMIN_PERMISSION) && caller.orgId === (await orders.platformOrgId());

  /** Marks an order paid and delivers what it bought, once: a second settlement of the same order does nothing. */
  const settle = (orderNo: string, method: string, realAmount: number, by: string, tradeNo?: string) => orders.settle({ orderNo, method, realAmount, by, tradeNo, now: clock.now() });

  api.get('/link-card-order/list', { config: { permission: 'link-card-order_list' }, schema: { querystring: c.OrderListQuery } }, async (req) =>
    ok(await orders.list(callerOf(req), req.query, undefined)),
  );
  api.get('/link-card-bill/list', { config: { permission: 'link-card-bill_list' }, schema: { querystring: c.OrderListQuery } }, async (req) =>
    ok(await orders.list(callerOf(req), req.query, BILL_TYPES)),
  );

  api.get('/link-card-bill/monthly', { config: { permission: 'link-card-bill_detail-list' }, schema: { querystring: c.MonthlyQuery } }, async (req) => {
    const caller = callerOf(req);
    const now = clock.now();
    const today = new Date(now + CHINA_OFFSET_MS);
    const year = Number(req.query.year ?? today.getUTCFullYear());
    const last = year < today.getUTCFullYear() ? 12 : year === today.getUTCFullYear() ? today.getUTCMonth() + 1 : 0;
    const billed = await orders.monthlyFeeOrders(caller.orgId);
    const list = [];
    for (let m = last; m >= 1; m--) {
      const month = `${year}-${String(m).padStart(2, '0')}`;
      const n = await orders.validCardCount(caller.orgId, month);
      const order = billed.find((o) => o.bill_month === month);
      list.push({ month, cardCount: n, unitPrice: Price.monthlyFeePerCard, amount: lineTotal(n, Price.monthlyFeePerCard), orderNo: order?.order_no ?? '', tradeState: order?.trade_state ?? '' });
    }
    return ok({ year, list });
  });

  api.get(
    '/link-card-bill/detail-list',
    { config: { permission: 'link-card-bill_detail-list' }, schema: { querystring: c.DetailListQuery } },
    async (req) => {
      const caller = callerOf(req);
      const pageNum = Number(req.query.pageNum ?? '1');
      const pageSize = Number(req.query.pageSize ?? '10');
      const { total, rows } = await orders.validCardPage(caller.orgId, req.query.month, pageNum, pageSize);
      return ok({
        total,
        list: rows.map((r) => ({ iccid: r.iccid, msisdn: r.msisdn, carrier: r.carrier, cardStatus: r.card_status, activatedAt: r.activated_at, expireTime: r.expire_time, fee: Price.monthlyFeePerCard })),
      });
    },
  );

  // The pay-data screens have no key in the spec: any logged-in user buys, for cards in their scope.
  api.post('/pay-data/createOrder', { config: { permission: 'session' }, schema: { body: c.CreateOrderBody } }, async (req) => {
    const caller = callerOf(req);
    const b = req.body;
    const now = clock.now();
    let lines: Line[];
    let logistics: string | null = null;
    let billMonth: string | null = null;
    if (b.type === 'flow' || b.type === 'zxj_flow') {
      if (!b.cards?.length) throw new ApiError(ApiCode.BadRequest, 'order.noCards');
      const family = b.type === 'flow' ? 'link' : 'juxin';
      const iccids = [...new Set(b.cards.map((c) => c.iccid))];
      const found = await orders.cardsByIccid(iccids);
      for (const c of b.cards) {
        const card = found.find((f) => f.iccid === c.iccid);
        if (!card || !caller.scope.has(card.org_id)) throw new ApiError(ApiCode.NotFound, 'order.cardNotFound');
        if (card.family !== family) throw new ApiError(ApiCode.BadRequest, 'order.wrongFamily');
        // A cancelled juxin card is gone at the carrier: renewing it would take money for nothing.
        if (b.type === 'zxj_flow' && card.juxin_status === JuxinCardStatus.Cancelled) throw new ApiError(ApiCode.BadRequest, 'order.cardCancelled');
      }
      lines = b.cards.map((c) => {
        const quantity = positive(c.count);
        const unitPrice = b.type === 'flow' ? Price.flowPerGb : Price.juxinPerMonth;
        return { iccid: c.iccid, item: c.iccid, quantity, unit: b.type === 'flow' ? 'GB' : 'month', unitPrice, total: lineTotal(quantity, unitPrice) };
      });
    } else if (b.type === 'monthly_function_fee' || b.type === 'zxj_monthly_function_fee') {
      if (!b.month) throw new ApiError(ApiCode.BadRequest, 'common.required');
      if (monthRange(b.month).start > now) throw new ApiError(ApiCode.BadRequest, 'order.futureMonth');
      if (await orders.hasOpenBill(caller.orgId, b.type, b.month)) throw new ApiError(ApiCode.BadRequest, 'order.alreadyBilled');
      const family = b.type === 'monthly_function_fee' ? 'link' : 'juxin';
      const n = await orders.validCardCount(caller.orgId, b.month, family);
      if (n === 0) throw new ApiError(ApiCode.BadRequest, 'order.noValidCards');
      lines = [{ item: b.month, quantity: n, unit: 'portion', unitPrice: Price.monthlyFeePerCard, total: lineTotal(n, Price.monthlyFeePerCard) }];
      billMonth = b.month;
    } else if (b.type === 'iso_bus_activation_code') {
      const quantity = positive(b.quantity);
      lines = [{ item: 'ISOBUS', quantity, unit: 'portion', unitPrice: Price.isoBusCode, total: lineTotal(quantity, Price.isoBusCode) }];
    } else {
      const quantity = positive(b.quantity);
      if (!b.formFactor || !b.logistics) throw new ApiError(ApiCode.BadRequest, 'common.required');
      const area = cleanText(b.logistics.area, 'field.area', true);
      const address = cleanText(b.logistics.address, 'field.address', true);
      const contact = cleanText(b.logistics.contact, 'field.contact', true);
      // Cards ship to mainland addresses only, so the stricter mobile rule applies.
      const phoneError = checkPhone(b.logistics.phone.trim(), true);
      if (phoneError) throw new ApiError(ApiCode.BadRequest, ruleMessageKey(phoneError));
      logistics = JSON.stringify({ area, address, contact, phone: b.logistics.phone.trim(), simType: b.formFactor });
      lines = [{ item: b.formFactor, quantity, unit: 'portion', unitPrice: Price.simPerCard, total: lineTotal(quantity, Price.simPerCard) }];
    }
    const amount = lines.reduce((sum, l) => sum + l.total, 0);
    const orderNo = newOrderNo(now);
    await orders.insert({ order_no: orderNo, org_id: caller.orgId, account: caller.account, type: b.type, trade_state: PaymentState.NotPay, amount, lines: JSON.stringify(lines), logistics, bill_month: billMonth, created_at: now });
    return ok({ orderNo, amount, amountText: formatAmount(amount), lines });
  });

  api.post('/pay-data/pay', { config: { permission: 'session' }, schema: { body: c.PayBody } }, async (req) => {
    const caller = callerOf(req);
    const order = await orderInScope(req.body.orderNo, caller);
    if (order.trade_state !== PaymentState.NotPay) throw new ApiError(ApiCode.BadRequest, 'order.notPayable');
    if (req.body.payMethod === 'offline') {
      const transfer = parseAmount(req.body.transferAmount ?? '');
      if (transfer === undefined) throw new ApiError(ApiCode.BadRequest, 'order.amount');
      if (transfer !== order.amount) throw new ApiError(ApiCode.BadRequest, 'order.transferMismatch');
      await orders.markOfflinePending(order.id, transfer);
      return ok({ payMethod: 'offline', bank: COMPANY_BANK, amountText: formatAmount(order.amount) });
    }
    if (!payment) throw new ApiError(ApiCode.BadRequest, 'order.noOnlinePayment');
    const trade = await payment.openTrade({ orderNo: order.order_no, amount: order.amount, subject: order.type });
    await orders.markAlipay(order.id, trade.tradeNo);
    return ok({ payMethod: 'alipay', tradeNo: trade.tradeNo, payUrl: trade.payUrl, sandbox: payment.sandbox });
  });

  // How the console offers payment: whether Alipay is there at all, whether it is the sandbox (shown as a
  // badge where the user pays), and whether this caller may complete sandbox payments.
  app.get('/payment/mode', { config: { permission: 'session' } }, async (req) => {
    const caller = callerOf(req);
    const sandbox = payment?.sandbox === true;
    // staff: platform staff confirm transfers and issue invoices; the console shows them those buttons.
    return ok({ online: payment !== undefined, sandbox, canSettle: sandbox && (await mayCompleteSandbox(caller)), staff: caller.orgId === (await orders.platformOrgId()) });
  });

  // What the payment service calls when a trade is paid; trusted only through the provider's signature.
  api.post('/payment/notify', { config: { public: true }, schema: { body: c.NotifyBody } }, async (req, reply) => {
    const paid = payment?.verifyNotification(req.body);
    if (!paid) return reply.type('text/plain').send('failure');
    const order = await orders.paymentOf(paid.orderNo);
    if (!order || order.trade_no !== paid.tradeNo || order.amount !== paid.amount) return reply.type('text/plain').send('failure');
    await settle(paid.orderNo, 'alipay', paid.amount, '', paid.tradeNo);
    return reply.type('text/plain').send('success');
  });

  // The sandbox stands in for the payer at Alipay: it posts the signed notification to our own notify route.
  // It settles an order without money, so it exists only when PAYMENT_SANDBOX=on and only for payment admins.
  api.post('/payment/sandbox/pay', { config: { permission: PAYMENT_ADMIN_PERMISSION }, schema: { body: c.OrderNoBody } }, async (req) => {
    const caller = callerOf(req);
    if (!(payment instanceof SandboxPayment)) throw new ApiError(ApiCode.BadRequest, 'order.notSandbox');
    if (!(await mayCompleteSandbox(caller))) throw new ApiError(ApiCode.Forbidden, 'order.paymentAdminOnly');
    const order = await orderInScope(req.body.orderNo, caller);
    if (order.trade_state !== PaymentState.NotPay || !order.trade_no) throw new ApiError(ApiCode.BadRequest, 'order.notPayable');
    const res = await app.inject({ method: 'POST', url: '/payment/notify', payload: payment.notificationFor({ tradeNo: order.trade_no, orderNo: order.order_no, amount: order.amount }) });
    return ok({ notified: res.body === 'success' });
  });

  api.post('/pay-data/close', { config: { permission: 'session' }, schema: { body: c.OrderNoBody } }, async (req) => {
    const order = await orderInScope(req.body.orderNo, callerOf(req));
    if (!(await orders.close(order.id, clock.now()))) throw new ApiError(ApiCode.BadRequest, 'order.notPayable');
    return ok(null);
  });

  api.post('/link-card-order/confirmOffline', { config: { permission: 'link-card-order_list' }, schema: { body: c.OrderNoBody } }, async (req) => {
    const caller = callerOf(req);
    if (caller.orgId !== (await orders.platformOrgId())) throw new ApiError(ApiCode.Forbidden, 'order.staffOnly');
    const order = await orderInScope(req.body.orderNo, caller);
    if (order.trade_state !== PaymentState.NotPay || order.offline_pending !== 1) throw new ApiError(ApiCode.BadRequest, 'order.notOffline');
    await settle(order.order_no, 'offline', order.real_amount, caller.account);
    return ok(null);
  });

  api.post('/link-card-order/invoice', { config: { permission: 'link-card-order_list' }, schema: { body: c.InvoiceBody } }, async (req) => {
    const caller = callerOf(req);
    const b = req.body;
    const header = cleanText(b.header, 'field.header', true);
    // Only the fields of the chosen type are kept (a plain invoice has no bank details), each checked as the
    // dialog checks it on blur.
    const given = { header, taxCode: (b.taxCode ?? '').trim().toUpperCase(), bank: (b.bank ?? '').trim(), bankAccount: (b.bankAccount ?? '').trim(), address: (b.address ?? '').trim(), telephone: (b.telephone ?? '').trim() };
    const fields = INVOICE_FIELDS[b.type];
    const problems = fields.map((f) => invoiceFieldProblem(b.type, f, given[f]));
    if (problems.includes('taxCode')) throw new ApiError(ApiCode.BadRequest, 'order.taxCode');
    if (problems.includes('required')) throw new ApiError(ApiCode.BadRequest, 'order.vatFields');
    if (problems.includes('bankAccount')) throw new ApiError(ApiCode.BadRequest, 'order.bankAccount');
    if (problems.includes('telephone')) throw new ApiError(ApiCode.BadRequest, 'order.invoiceTelephone');
    const invoice = { type: b.type, ...Object.fromEntries(fields.map((f) => [f, given[f]])), state: 'requested', requestedAt: clock.now() };
    const chosen = await orders.invoiceCandidates(b.orderNos);
    if (chosen.length !== new Set(b.orderNos).size || chosen.some((o) => !caller.scope.has(o.org_id))) throw new ApiError(ApiCode.NotFound, 'order.notFound');
    if (chosen.some((o) => o.trade_state !== PaymentState.Success || o.invoiced === 1)) throw new ApiError(ApiCode.BadRequest, 'order.notInvoiceable');
    await orders.requestInvoice(chosen.map((o) => o.id), JSON.stringify(invoice));
    return ok(null);
  });

  // Shipping of a delivered card purchase: staff ship it with the courier's tracking number, the buyer
  // confirms receipt. Each step only from the one before it.
  const shippingStep = async (orderNo: string, caller: Caller, from: ShippingState, to: ShippingState, extra: Record<string, unknown>) => {
    const order = await orderInScope(orderNo, caller);
    const logistics = order.logistics ? (JSON.parse(order.logistics) as Record<string, unknown>) : undefined;
    if (!logistics || logistics.shipping !== from) throw new ApiError(ApiCode.BadRequest, 'order.shippingStep');
    const next = JSON.stringify({ ...logistics, shipping: to, ...extra });
    if (!(await orders.replaceLogistics(order.id, order.logistics, next))) throw new ApiError(ApiCode.BadRequest, 'order.shippingStep');
    return ok(JSON.parse(next) as unknown);
  };
  api.post(
    '/link-card-order/ship',
    { config: { permission: 'link-card-order_list' }, schema: { body: c.ShipBody } },
    async (req) => {
      const caller = callerOf(req);
      if (caller.orgId !== (await orders.platformOrgId())) throw new ApiError(ApiCode.Forbidden, 'order.shipStaffOnly');
      const trackingNo = req.body.trackingNo.trim();
      if (!/^[A-Za-z0-9-]{6,40}$/.test(trackingNo)) throw new ApiError(ApiCode.BadRequest, 'order.trackingNo');
      return shippingStep(req.body.orderNo, caller, 'to_ship', 'shipped', { trackingNo, shippedAt: clock.now() });
    },
  );
  api.post('/link-card-order/receive', { config: { permission: 'link-card-order_list' }, schema: { body: c.OrderNoBody } }, async (req) =>
    shippingStep(req.body.orderNo, callerOf(req), 'shipped', 'received', { receivedAt: clock.now() }),
  );

  // Staff issue a requested invoice with the number the tax system gave it; the date is now and the amount is
  // what the order was paid. The buyer's header and tax fields stay as requested, viewable afterwards.
  api.post('/link-card-order/issueInvoice', { config: { permission: 'link-card-order_list' }, schema: { body: c.IssueInvoiceBody } }, async (req) => {
    const caller = callerOf(req);
    if (caller.orgId !== (await orders.platformOrgId())) throw new ApiError(ApiCode.Forbidden, 'order.invoiceStaffOnly');
    const number = req.body.invoiceNo.trim();
    if (!INVOICE_NO.test(number)) throw new ApiError(ApiCode.BadRequest, 'order.invoiceNo');
    const order = await orderInScope(req.body.orderNo, caller);
    const current = invoiceView(order.invoice);
    if (!current || current.state !== 'requested') throw new ApiError(ApiCode.BadRequest, 'order.invoiceNotRequested');
    const issued: OrderInvoice = { ...current, state: 'issued', number, issuedAt: clock.now(), amount: order.real_amount };
    if (!(await orders.replaceInvoice(order.id, order.invoice, JSON.stringify(issued)))) throw new ApiError(ApiCode.BadRequest, 'order.invoiceNotRequested');
    return ok(issued);
  });
}
