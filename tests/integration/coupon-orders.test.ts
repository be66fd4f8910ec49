import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, client, createOrg, createRole } from '../support/console-api.ts';
import { loginAs, loginAsAdmin, injectTestServer, type TestServer } from '../support/server.ts';

/*
 * Buying push coupons (security review H1). `/push-coupon/recharge` used to write a ledger row and raise
 * the balance at once, for anyone holding the coupon page's key: coupons without payment. Now it opens a
 * `push_ticket` order awaiting payment, paid like every other order (/pay-data/pay), and only the
 * settlement of that order credits the coupons, once.
 */

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

interface CouponInfo {
  balance: number;
  unitPrice: number;
  orderTotal: number;
  unpaid: { orderNo: string; amount: number; count: number; offlinePending: boolean }[];
}
interface CouponOrder {
  orderNo: string;
  amount: number;
  amountText: string;
  purchaseType: string;
}

async function tenant(ts: TestServer, admin: Client, keys: string[]): Promise<Client> {
  const roleId = await createRole(admin, unique('couponrole'), keys);
  const account = unique('couponacct');
  await createOrg(admin, { name: unique('Coupon org '), account, password: 'Tenant_pw1', roleId });
  return client(ts, (await loginAs(ts, account, 'Tenant_pw1')).token);
}

const orderRow = (ts: TestServer, orderNo: string) => ts.server.db.selectFrom('commerce_orders').selectAll().where('order_no', '=', orderNo).executeTakeFirstOrThrow();

describe('push coupons are bought through a paid order', () => {
  let ts: TestServer;
  let admin: Client;

  beforeAll(async () => {
    ts = await injectTestServer('sqlite', { PAYMENT_SANDBOX: 'on' });
    admin = client(ts, (await loginAsAdmin(ts)).token);
  });
  afterAll(async () => ts?.stop());

  it('a recharge opens an order awaiting payment and credits nothing, however many coupons it asks for', async () => {
    // The reviewer's probe: only the coupon page's key, a million coupons.
    const buyer = await tenant(ts, admin, ['custom-made-img_push-log', 'push_log_list']);
    const order = await buyer.ok<CouponOrder>('POST', '/push-coupon/recharge', { count: 1_000_000 });
    expect(order).toMatchObject({ amount: 100_000_000, amountText: '1000000.00', purchaseType: 'push_ticket' });
    const info = await buyer.ok<CouponInfo>('GET', '/push-coupon/info');
    expect(info).toMatchObject({ balance: 0, orderTotal: 0 });
    expect(info.unpaid).toEqual([expect.objectContaining({ orderNo: order.orderNo, amount: 100_000_000, count: 1_000_000, offlinePending: false })]);
    expect((await buyer.ok<{ total: number }>('POST', '/push-coupon/ledger', { pageNum: 1, pageSize: 10 })).total).toBe(0);
    expect(await orderRow(ts, order.orderNo)).toMatchObject({ type: 'push_ticket', trade_state: 'NOT_PAY', amount: 100_000_000 });
  });

  it('refuses fewer than 50 coupons with the spec message', async () => {
    const buyer = await tenant(ts, admin, ['custom-made-img_push-log', 'push_log_list']);
    expect(await buyer.call('POST', '/push-coupon/recharge', { count: 49 })).toMatchObject({ code: 40001, message: 'Push coupon recharge minimum 50' });
    expect((await buyer.ok<CouponInfo>('GET', '/push-coupon/info')).unpaid).toEqual([]);
  });

  it('an offline transfer credits the coupons only when platform staff confirm it, and only once', async () => {
    const buyer = await tenant(ts, admin, ['custom-made-img_push-log', 'push_log_list']);
    const order = await buyer.ok<CouponOrder>('POST', '/push-coupon/recharge', { count: 60 });
    // Claiming a transfer is not paying.
    await buyer.ok('POST', '/pay-data/pay', { orderNo: order.orderNo, payMethod: 'offline', transferAmount: order.amountText });
    expect(await buyer.ok<CouponInfo>('GET', '/push-coupon/info')).toMatchObject({ balance: 0, unpaid: [expect.objectContaining({ orderNo: order.orderNo, offlinePending: true })] });
    // The buyer cannot confirm its own transfer.
    expect((await buyer.call('POST', '/link-card-order/confirmOffline', { orderNo: order.orderNo })).code).not.toBe(20000);
    await admin.ok('POST', '/link-card-order/confirmOffline', { orderNo: order.orderNo });
    expect(await buyer.ok<CouponInfo>('GET', '/push-coupon/info')).toMatchObject({ balance: 60, orderTotal: 60, unpaid: [] });
    expect(await admin.call('POST', '/link-card-order/confirmOffline', { orderNo: order.orderNo })).toMatchObject({ code: 40001 });
    expect((await buyer.ok<CouponInfo>('GET', '/push-coupon/info')).balance).toBe(60);
    const ledger = await buyer.ok<{ list: { delta: number; reason: string; orderNo: string; amount: number }[] }>('POST', '/push-coupon/ledger', { pageNum: 1, pageSize: 10 });
    expect(ledger.list).toEqual([expect.objectContaining({ delta: 60, reason: 'recharge', orderNo: order.orderNo, amount: 60 })]);
  });

  it('an Alipay (sandbox) payment credits the coupons when the payment administrator completes it, not before', async () => {
    const buyer = await tenant(ts, admin, ['custom-made-img_push-log', 'push_log_list']);
    const order = await buyer.ok<CouponOrder>('POST', '/push-coupon/recharge', { count: 50 });
    expect(await buyer.ok('POST', '/pay-data/pay', { orderNo: order.orderNo, payMethod: 'alipay' })).toMatchObject({ payMethod: 'alipay', sandbox: true });
    expect((await buyer.call('POST', '/payment/sandbox/pay', { orderNo: order.orderNo })).code).toBe(40003);
    expect((await buyer.ok<CouponInfo>('GET', '/push-coupon/info')).balance).toBe(0);
    expect(await admin.ok('POST', '/payment/sandbox/pay', { orderNo: order.orderNo })).toEqual({ notified: true });
    expect((await buyer.ok<CouponInfo>('GET', '/push-coupon/info')).balance).toBe(50);
    expect((await orderRow(ts, order.orderNo)).trade_state).toBe('SUCCESS');
  });

  it('a closed coupon order never credits anything', async () => {
    const buyer = await tenant(ts, admin, ['custom-made-img_push-log', 'push_log_list']);
    const order = await buyer.ok<CouponOrder>('POST', '/push-coupon/recharge', { count: 70 });
    await buyer.ok('POST', '/pay-data/pay', { orderNo: order.orderNo, payMethod: 'offline', transferAmount: order.amountText });
    await buyer.ok('POST', '/pay-data/close', { orderNo: order.orderNo });
    expect((await admin.call('POST', '/link-card-order/confirmOffline', { orderNo: order.orderNo })).code).toBe(40001);
    expect(await buyer.ok<CouponInfo>('GET', '/push-coupon/info')).toMatchObject({ balance: 0, unpaid: [] });
  });
});
