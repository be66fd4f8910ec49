import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GB } from '../../server/cards/card-codes.ts';
import { AmountMessage, formatAmount, lineTotal, parseAmount, Price } from '../../server/commerce/money.ts';
import { LICENCE_VALIDITY_MS, LicenceMessage } from '../../server/commerce/licence-routes.ts';
import { monthRange, OrderMessage } from '../../server/commerce/order-routes.ts';
import { type Client, client, createOrg } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { api, fetchFrom, injectTestServer, loginAs, loginAsAdmin, type TestServer } from '../support/server.ts';
import type { OrderInvoice } from '../../protocol/api/invoices.ts';

const targets = await dbTargets();

describe('money', () => {
  it('parses and formats amounts with at most 2 decimals, exactly', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e12 }), (minor) => parseAmount(formatAmount(minor)) === minor));
    expect(parseAmount('12')).toBe(1200);
    expect(parseAmount('12.3')).toBe(1230);
    expect(parseAmount('0.07')).toBe(7);
    for (const bad of ['12.345', '-1', '1e3', '', '.5', '01.00', 'abc', '1,000']) expect(parseAmount(bad)).toBeUndefined();
  });

  it('line totals and order sums are exact integer arithmetic with no drift', () => {
    const line = fc.record({ q: fc.integer({ min: 1, max: 100_000 }), p: fc.integer({ min: 1, max: 1_000_000 }) });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 50 }), (lines) => {
        const sum = lines.reduce((s, l) => s + lineTotal(l.q, l.p), 0);
        // Summing the yuan texts digit by digit gives the same as summing minor units.
        const viaText = lines.reduce((s, l) => s + (parseAmount(formatAmount(lineTotal(l.q, l.p))) ?? Number.NaN), 0);
        return Number.isSafeInteger(sum) && sum === viaText && formatAmount(sum).endsWith(String(sum % 100).padStart(2, '0'));
      }),
    );
    expect(() => lineTotal(1.5, 100)).toThrow(RangeError);
  });
});

interface Order {
  orderNo: string;
  type: string;
  tradeState: string;
  payMethod: string | null;
  offlinePending: boolean;
  amount: number;
  realAmount: number;
  invoiced: boolean;
  invoice: OrderInvoice | null;
  logistics: { shipping?: string; trackingNo?: string; iccids?: string[]; simType: string; contact: string; phone: string; area: string } | null;
}
interface CardRow {
  iccid: string;
  quotaBytes: number;
  expireTime: number;
  juxinStatus: number | null;
}
type Page<T> = { total: number; list: T[] };

for (const target of targets) {
  describe.skipIf(!target.available)(`orders, bills and payment (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let tenant: Client;

    beforeAll(async () => {
      // The sandbox stands in for Alipay here; it is off unless asked for.
      ts = await injectTestServer(target.name, { PAYMENT_SANDBOX: 'on' });
      admin = client(ts, (await loginAsAdmin(ts)).token);
      await createOrg(admin, { name: 'Buyer', account: 'buyer', password: 'Buyer_pw1' });
      tenant = client(ts, (await loginAs(ts, 'buyer', 'Buyer_pw1')).token);
    });
    afterAll(async () => ts?.stop());

    const orders = (c: Client, q = '') => c.ok<Page<Order>>('GET', `/link-card-order/list?pageNum=1&pageSize=100${q}`);
    const firstLinkCard = async () => {
      const card = (await admin.ok<Page<CardRow>>('GET', '/linkCard/listCardInfo?status=30')).list[0];
      if (!card) throw new Error('no link card');
      return card;
    };

    it('tops up traffic through the sandbox: the order is paid once and the card gets its GB for 3 years', async () => {
      const card = await firstLinkCard();
      expect(await admin.call('POST', '/pay-data/createOrder', { type: 'flow', cards: [{ iccid: card.iccid, count: 0 }] })).toMatchObject({ code: 40001, message: OrderMessage.PositiveInteger });
      expect(await admin.call('POST', '/pay-data/createOrder', { type: 'flow', cards: [{ iccid: card.iccid, count: 1.5 }] })).toMatchObject({ message: OrderMessage.PositiveInteger });
      const created = await admin.ok<{ orderNo: string; amount: number; amountText: string }>('POST', '/pay-data/createOrder', { type: 'flow', cards: [{ iccid: card.iccid, count: 3 }] });
      expect(created).toMatchObject({ amount: 3 * Price.flowPerGb, amountText: '30.00' });
      const pay = await admin.ok<{ tradeNo: string; sandbox: boolean }>('POST', '/pay-data/pay', { orderNo: created.orderNo, payMethod: 'alipay' });
      expect(pay.sandbox).toBe(true);

      // A forged notification is refused and changes nothing.
      const forged = await fetchFrom(ts.server.url, `/payment/notify`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ trade_no: pay.tradeNo, out_trade_no: created.orderNo, total_amount: '3000', trade_status: 'TRADE_SUCCESS', sign: 'f'.repeat(64) }),
      });
      expect(await forged.text()).toBe('failure');
      expect((await orders(admin, `&orderNo=${created.orderNo}`)).list[0]?.tradeState).toBe('NOT_PAY');

      expect(await admin.ok('POST', '/payment/sandbox/pay', { orderNo: created.orderNo })).toEqual({ notified: true });
      expect((await orders(admin, `&orderNo=${created.orderNo}`)).list[0]).toMatchObject({ tradeState: 'SUCCESS', payMethod: 'alipay' });
      const after = await admin.ok<CardRow>('GET', `/linkCard/getCardDetail/${card.iccid}`);
      expect(after.quotaBytes).toBe(card.quotaBytes + 3 * GB);
      expect(after.expireTime).toBeGreaterThanOrEqual(Date.now() + 3 * 365 * 86_400_000 - 60_000);
      // Paying again is refused; the quota is not raised twice.
      expect((await admin.call('POST', '/pay-data/pay', { orderNo: created.orderNo, payMethod: 'alipay' })).message).toBe(OrderMessage.NotPayable);
      expect((await admin.ok<CardRow>('GET', `/linkCard/getCardDetail/${card.iccid}`)).quotaBytes).toBe(card.quotaBytes + 3 * GB);
    });

    it('renews juxin cards by the month, and refuses cards of another family or cancelled ones', async () => {
      const juxinCards = (await admin.ok<Page<CardRow>>('GET', '/zxj/list?pageNum=1&pageSize=100')).list;
      // Status 0 is cancelled: gone at the carrier, never renewed (issue 20).
      const juxin = juxinCards.find((c) => c.juxinStatus !== 0);
      const cancelled = juxinCards.find((c) => c.juxinStatus === 0);
      const link = await firstLinkCard();
      if (!juxin || !cancelled) throw new Error('no juxin card');
      expect((await admin.call('POST', '/pay-data/createOrder', { type: 'zxj_flow', cards: [{ iccid: link.iccid, count: 1 }] })).message).toBe(OrderMessage.WrongFamily);
      expect((await admin.call('POST', '/pay-data/createOrder', { type: 'zxj_flow', cards: [{ iccid: cancelled.iccid, count: 1 }] })).message).toBe(OrderMessage.CardCancelled);
      const renew = await admin.ok<{ orderNo: string; amount: number }>('POST', '/pay-data/createOrder', { type: 'zxj_flow', cards: [{ iccid: juxin.iccid, count: 6 }] });
      expect(renew.amount).toBe(6 * Price.juxinPerMonth);
      await admin.ok('POST', '/pay-data/pay', { orderNo: renew.orderNo, payMethod: 'alipay' });
      await admin.ok('POST', '/payment/sandbox/pay', { orderNo: renew.orderNo });
      const after = await admin.ok<CardRow>('GET', `/linkCard/getCardDetail/${juxin.iccid}`);
      // The seeded card has not expired yet, so the months are added to its expiry.
      expect(juxin.expireTime).toBeGreaterThan(Date.now());
      expect(after.expireTime).toBe(juxin.expireTime + 6 * 30 * 86_400_000);
    });

    it('juxin: a unified purchase delivers unified-pool cards; the monthly fee counts the valid ones (activated, not cancelled) and bills a month once', async () => {
      const logistics = { area: 'Guangdong Shenzhen', address: '1 Science Park Rd', contact: 'Li Lei', phone: '13800138000' };
      const bought = await tenant.ok<{ orderNo: string; amount: number }>('POST', '/pay-data/createOrder', { type: 'zxj_unify_sim', quantity: 3, formFactor: 'nano', logistics });
      expect(bought.amount).toBe(3 * Price.simPerCard);
      await tenant.ok('POST', '/pay-data/pay', { orderNo: bought.orderNo, payMethod: 'alipay' });
      await admin.ok('POST', '/payment/sandbox/pay', { orderNo: bought.orderNo });
      const { orgId } = await loginAs(ts, 'buyer', 'Buyer_pw1');
      const cards = await ts.server.db.selectFrom('sim_cards').select(['id', 'family', 'combo_type', 'juxin_status']).where('org_id', '=', orgId).orderBy('id').execute();
      expect(cards).toHaveLength(3);
      expect(cards.every((c) => c.family === 'juxin' && c.combo_type === 'UP')).toBe(true);

      const now = new Date(Date.now() + 8 * 3_600_000);
      const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
      // Delivered cards wait to be activated: no fee is due for them yet.
      expect((await tenant.call('POST', '/pay-data/createOrder', { type: 'zxj_monthly_function_fee', month })).message).toBe(OrderMessage.NoValidCards);
      // One card activated and in service, one activated then cancelled at the carrier, one still waiting.
      const [inService, cancelled] = cards;
      if (!inService || !cancelled) throw new Error('cards missing');
      const activatedAt = Date.now() - 86_400_000;
      await ts.server.db.updateTable('sim_cards').set({ activated_at: activatedAt, juxin_status: 2 }).where('id', '=', inService.id).execute();
      await ts.server.db.updateTable('sim_cards').set({ activated_at: activatedAt, juxin_status: 0 }).where('id', '=', cancelled.id).execute();
      const fee = await tenant.ok<{ orderNo: string; amount: number; lines: { quantity: number }[] }>('POST', '/pay-data/createOrder', { type: 'zxj_monthly_function_fee', month });
      expect(fee.lines[0]?.quantity).toBe(1);
      expect(fee.amount).toBe(Price.monthlyFeePerCard);
      expect((await tenant.call('POST', '/pay-data/createOrder', { type: 'zxj_monthly_function_fee', month })).message).toBe(OrderMessage.AlreadyBilled);
      // The link-card fee of the same month is a different bill.
      expect((await tenant.call('POST', '/pay-data/createOrder', { type: 'monthly_function_fee', month })).message).toBe(OrderMessage.NoValidCards);
      await tenant.ok('POST', '/pay-data/pay', { orderNo: fee.orderNo, payMethod: 'alipay' });
      await admin.ok('POST', '/payment/sandbox/pay', { orderNo: fee.orderNo });
      expect((await orders(tenant, `&orderNo=${fee.orderNo}`)).list[0]).toMatchObject({ type: 'zxj_monthly_function_fee', tradeState: 'SUCCESS' });
    });

    it('buys cards by offline transfer: amount checked, company bank shown, confirmed by platform staff only', async () => {
      const bad = { type: 'sim', quantity: 10, formFactor: 'nano', logistics: { area: 'Guangdong Shenzhen', address: '1 Science Park Rd', contact: 'Li Lei', phone: '2345' } };
      expect((await tenant.call('POST', '/pay-data/createOrder', bad)).message).toBe(OrderMessage.Phone);
      expect((await tenant.call('POST', '/pay-data/createOrder', { ...bad, logistics: { ...bad.logistics, phone: '13800138000', address: ' ' } })).message).toBe('Address cannot be empty!');
      const created = await tenant.ok<{ orderNo: string; amount: number }>('POST', '/pay-data/createOrder', { ...bad, logistics: { ...bad.logistics, phone: '13800138000' } });
      expect(created.amount).toBe(10 * Price.simPerCard);
      expect((await tenant.call('POST', '/pay-data/pay', { orderNo: created.orderNo, payMethod: 'offline', transferAmount: '150.001' })).message).toBe(AmountMessage);
      expect((await tenant.call('POST', '/pay-data/pay', { orderNo: created.orderNo, payMethod: 'offline', transferAmount: '149.99' })).message).toBe(OrderMessage.TransferMismatch);
      const offline = await tenant.ok<{ bank: { account: string } }>('POST', '/pay-data/pay', { orderNo: created.orderNo, payMethod: 'offline', transferAmount: '150' });
      expect(offline.bank.account).toMatch(/\d/);
      expect((await orders(tenant)).list[0]).toMatchObject({ tradeState: 'NOT_PAY', offlinePending: true, payMethod: 'offline' });

      // The buyer's organisation is not platform staff (and lacks the key's reach above itself).
      const denied = await tenant.call('POST', '/link-card-order/confirmOffline', { orderNo: created.orderNo });
      expect(denied).toMatchObject({ code: 40003, message: OrderMessage.StaffOnly });
      await admin.ok('POST', '/link-card-order/confirmOffline', { orderNo: created.orderNo });
      expect((await orders(tenant)).list[0]).toMatchObject({ tradeState: 'SUCCESS', offlinePending: false });
      expect((await admin.call('POST', '/link-card-order/confirmOffline', { orderNo: created.orderNo })).message).toBe(OrderMessage.NotOffline);

      // The paid purchase delivers: ten new cards in the buyer's inventory, the order waiting to ship.
      const delivered = (await orders(tenant)).list[0];
      expect(delivered?.logistics).toMatchObject({ shipping: 'to_ship', simType: 'nano', contact: 'Li Lei', phone: '13800138000', area: 'Guangdong Shenzhen' });
      const iccids = delivered?.logistics?.iccids ?? [];
      expect(iccids).toHaveLength(10);
      const inventory = await tenant.ok<Page<CardRow & { formFactor: string; cardStatus: number }>>('GET', `/linkCard/listCardInfo?pageNum=1&pageSize=100&iccid=${iccids[0]}`);
      expect(inventory.list[0]).toMatchObject({ iccid: iccids[0], formFactor: 'nano', cardStatus: 20, quotaBytes: 0 });
      // Staff ship it with a tracking number; the buyer confirms receipt; each step once.
      expect((await tenant.call('POST', '/link-card-order/ship', { orderNo: created.orderNo, trackingNo: 'SF1234567890' })).message).toBe(OrderMessage.ShipStaffOnly);
      expect((await admin.call('POST', '/link-card-order/ship', { orderNo: created.orderNo, trackingNo: 'x' })).message).toBe(OrderMessage.TrackingNo);
      await admin.ok('POST', '/link-card-order/ship', { orderNo: created.orderNo, trackingNo: 'SF1234567890' });
      expect((await orders(tenant)).list[0]?.logistics).toMatchObject({ shipping: 'shipped', trackingNo: 'SF1234567890' });
      await tenant.ok('POST', '/link-card-order/receive', { orderNo: created.orderNo });
      expect((await orders(tenant)).list[0]?.logistics).toMatchObject({ shipping: 'received' });
      expect((await tenant.call('POST', '/link-card-order/receive', { orderNo: created.orderNo })).message).toBe(OrderMessage.ShippingStep);

      // Invoices: a special VAT invoice needs every company field and a valid tax code.
      expect((await tenant.call('POST', '/link-card-order/invoice', { orderNos: [created.orderNo], type: 'VAT', header: 'Buyer Ltd' })).message).toBe(OrderMessage.VatFields);
      const vat = { orderNos: [created.orderNo], type: 'VAT', header: 'Buyer Ltd', taxCode: '91440300MA5ABCDE1X', bank: 'ICBC', bankAccount: '6222000011112222', address: 'Shenzhen', telephone: '0755-12345678' };
      expect((await tenant.call('POST', '/link-card-order/invoice', { ...vat, taxCode: 'bad!' })).message).toBe(OrderMessage.TaxCode);
      await tenant.ok('POST', '/link-card-order/invoice', vat);
      expect((await orders(tenant)).list[0]?.invoiced).toBe(true);
      expect((await tenant.call('POST', '/link-card-order/invoice', vat)).message).toBe(OrderMessage.NotInvoiceable);

      // Requested -> issued: staff issue it with the tax system's number; the date and amount are set then and
      // the buyer's header and tax fields stay viewable.
      expect((await orders(tenant)).list[0]?.invoice).toMatchObject({ type: 'VAT', state: 'requested', header: 'Buyer Ltd', taxCode: '91440300MA5ABCDE1X', bankAccount: '6222000011112222', number: null, issuedAt: null });
      expect((await tenant.call('POST', '/link-card-order/issueInvoice', { orderNo: created.orderNo, invoiceNo: '04400123456789' })).message).toBe(OrderMessage.InvoiceStaffOnly);
      expect((await admin.call('POST', '/link-card-order/issueInvoice', { orderNo: created.orderNo, invoiceNo: '12ab' })).message).toBe(OrderMessage.InvoiceNo);
      await admin.ok('POST', '/link-card-order/issueInvoice', { orderNo: created.orderNo, invoiceNo: '04400123456789' });
      const issued = (await orders(tenant)).list[0];
      expect(issued?.invoice).toMatchObject({ state: 'issued', number: '04400123456789', amount: issued?.realAmount, header: 'Buyer Ltd', telephone: '0755-12345678' });
      expect(issued?.invoice?.issuedAt).toEqual(expect.any(Number));
      expect((await admin.call('POST', '/link-card-order/issueInvoice', { orderNo: created.orderNo, invoiceNo: '04400123456789' })).message).toBe(OrderMessage.NotRequested);
    });

    it('closes an unpaid order, keeps orders to their organisation, and lists bills of the link-card types only', async () => {
      const created = await tenant.ok<{ orderNo: string }>('POST', '/pay-data/createOrder', { type: 'sim', quantity: 1, formFactor: 'micro', logistics: { area: 'A', address: 'B', contact: 'C', phone: '13900139000' } });
      expect((await admin.call('POST', '/pay-data/close', { orderNo: 'X'.repeat(12) })).code).toBe(40004);
      await tenant.ok('POST', '/pay-data/close', { orderNo: created.orderNo });
      expect((await tenant.call('POST', '/pay-data/pay', { orderNo: created.orderNo, payMethod: 'alipay' })).message).toBe(OrderMessage.NotPayable);
      expect((await orders(tenant, '&tradeState=CLOSED')).total).toBe(1);
      // The buyer sees only its own orders: this card purchase, the earlier transfer purchase, and the juxin
      // unified purchase with its monthly fee.
      const mine = await orders(tenant);
      expect(mine.total).toBe(4);
      // The platform above sees them too, beside its own two (traffic and juxin renewal).
      expect((await orders(admin)).total).toBe(mine.total + 2);
      const card = await firstLinkCard();
      expect((await tenant.call('POST', '/pay-data/createOrder', { type: 'flow', cards: [{ iccid: card.iccid, count: 1 }] })).code).toBe(40004);
      const bills = await admin.ok<Page<Order>>('GET', '/link-card-bill/list');
      expect(bills.list.every((o) => ['flow', 'monthly_function_fee', 'unify_sim', 'sim'].includes(o.type))).toBe(true);
    });

    it('monthly bills charge 1 unit per valid card per month, computed from card data, and pay once', async () => {
      const now = new Date(Date.now() + 8 * 3_600_000);
      const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
      const monthly = await admin.ok<{ list: { month: string; cardCount: number; amount: number; tradeState: string }[] }>('GET', '/link-card-bill/monthly');
      const current = monthly.list.find((m) => m.month === month);
      // The seed: link cards activated, not closed, not expired, excluding those never used.
      expect(current?.cardCount).toBeGreaterThan(0);
      expect(current?.amount).toBe((current?.cardCount ?? 0) * Price.monthlyFeePerCard);
      const detail = await admin.ok<Page<{ iccid: string; cardStatus: number }>>('GET', `/link-card-bill/detail-list?month=${month}&pageNum=1&pageSize=100`);
      expect(detail.total).toBe(current?.cardCount);
      expect(detail.list.every((c) => c.cardStatus !== 50)).toBe(true);

      const next = monthRange(month).end + 86_400_000;
      const future = new Date(next + 8 * 3_600_000);
      const futureMonth = `${future.getUTCFullYear()}-${String(future.getUTCMonth() + 1).padStart(2, '0')}`;
      expect((await admin.call('POST', '/pay-data/createOrder', { type: 'monthly_function_fee', month: futureMonth })).message).toBe(OrderMessage.FutureMonth);
      const bill = await admin.ok<{ orderNo: string; amount: number }>('POST', '/pay-data/createOrder', { type: 'monthly_function_fee', month });
      expect(bill.amount).toBe(current?.amount);
      expect((await admin.call('POST', '/pay-data/createOrder', { type: 'monthly_function_fee', month })).message).toBe(OrderMessage.AlreadyBilled);
      await admin.ok('POST', '/pay-data/pay', { orderNo: bill.orderNo, payMethod: 'alipay' });
      await admin.ok('POST', '/payment/sandbox/pay', { orderNo: bill.orderNo });
      const paid = await admin.ok<{ list: { month: string; tradeState: string }[] }>('GET', '/link-card-bill/monthly');
      expect(paid.list.find((m) => m.month === month)?.tradeState).toBe('SUCCESS');
      // No permission key, no bills.
      expect((await api(ts.server.url, 'GET', '/link-card-bill/monthly')).code).toBe(3);
    });

    it('licences: bought codes arrive unused, are distributed, exported, and activated once on the public call', async () => {
      const bought = await tenant.ok<{ orderNo: string; amount: number }>('POST', '/pay-data/createOrder', { type: 'iso_bus_activation_code', quantity: 3 });
      expect(bought.amount).toBe(3 * Price.isoBusCode);
      await tenant.ok('POST', '/pay-data/pay', { orderNo: bought.orderNo, payMethod: 'alipay' });
      // The tenant pays; completing a sandbox trade is the platform's payment administrators' to do.
      expect((await tenant.call('POST', '/payment/sandbox/pay', { orderNo: bought.orderNo })).message).toBe(OrderMessage.PaymentAdminOnly);
      await admin.ok('POST', '/payment/sandbox/pay', { orderNo: bought.orderNo });
      type Code = { id: number; code: string; status: number; label: string; expireTime: number | null; deviceSn: string };
      const codes = await tenant.ok<Page<Code>>('GET', '/iso-bus/list?pageNum=1&pageSize=10');
      expect(codes.total).toBe(3);
      expect(codes.list.every((c) => c.status === 0 && /^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/.test(c.code))).toBe(true);
      // Staff generate; a customer organisation cannot.
      expect((await tenant.call('POST', '/iso-bus/generate', { count: 2 })).message).toBe(LicenceMessage.StaffOnly);
      expect((await admin.ok<{ codes: string[] }>('POST', '/iso-bus/generate', { count: 2, label: 'stock' })).codes).toHaveLength(2);
      expect((await tenant.ok<Page<Code>>('GET', '/iso-bus/list')).total).toBe(3);

      const [first, second] = codes.list as [Code, Code];
      await tenant.ok('POST', '/iso-bus/distribute', { ids: [first.id], label: 'Farm dealer A' });
      expect((await tenant.ok<Page<Code>>('GET', '/iso-bus/list?status=2')).list.map((c) => c.code)).toEqual([first.code]);
      expect((await tenant.call('POST', '/iso-bus/distribute', { ids: [first.id], label: 'again' })).message).toBe(LicenceMessage.NotUnused);

      const csv = await fetchFrom(ts.server.url, `/iso-bus/export`, { headers: { 'X-Token': (await loginAs(ts, 'buyer', 'Buyer_pw1')).token } });
      expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
      const text = await csv.text();
      for (const c of codes.list) expect(text).toContain(c.code);
      // Translated headers, labels instead of status numbers, the spec's date formats (issue 20).
      const [head, ...body] = text.replace(/^\uFEFF/, '').trim().split('\r\n');
      expect(head).toBe('Activation code,Label,Status,Device SN,Validity,Expiry date,Operation time');
      expect(body.find((l) => l.startsWith(first.code))).toMatch(/^[0-9A-Z-]{19},Farm dealer A,Distributed,,3 years,,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

      const activate = (code: string, sn: string) => api<{ expireTime: number }>(ts.server.url, 'POST', '/isobus-activate/activate', { body: { code, sn } });
      expect((await activate('NOT-A-CODE', 'SN1')).message).toBe(LicenceMessage.Invalid);
      expect((await activate('0000-0000-0000-0000', 'SN1')).message).toBe(LicenceMessage.Invalid);
      expect((await activate(second.code, ' ')).message).toBe(LicenceMessage.Sn);
      const ok = await activate(second.code.toLowerCase(), 'TRACTOR-7');
      expect(ok.code).toBe(20000);
      expect(ok.data.expireTime - Date.now()).toBeGreaterThan(LICENCE_VALIDITY_MS - 60_000);
      expect((await activate(second.code, 'TRACTOR-8')).message).toBe(LicenceMessage.Used);
      const used = (await tenant.ok<Page<Code>>('GET', '/iso-bus/list?status=1')).list[0];
      expect(used).toMatchObject({ code: second.code, deviceSn: 'TRACTOR-7' });
    });
  });
}
