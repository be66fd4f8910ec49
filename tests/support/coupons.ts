import { api } from './server.ts';

/**
 * Buys push coupons the way a customer does: opens the coupon order, pays it by offline transfer, and has
 * platform staff (`adminToken`, an account of the root organisation) confirm the transfer, which settles
 * the order and credits the coupons. `payerToken` may be the admin's own.
 */
export async function buyCoupons(base: string, payerToken: string, adminToken: string, count: number): Promise<{ orderNo: string; balance: number }> {
  const order = await api<{ orderNo: string; amountText: string }>(base, 'POST', '/push-coupon/recharge', { token: payerToken, body: { count } });
  if (order.code !== 20000) throw new Error(`coupon order of ${count} refused: ${order.message}`);
  const { orderNo, amountText } = order.data;
  const paid = await api(base, 'POST', '/pay-data/pay', { token: payerToken, body: { orderNo, payMethod: 'offline', transferAmount: amountText } });
  if (paid.code !== 20000) throw new Error(`coupon order ${orderNo} not paid: ${paid.message}`);
  const confirmed = await api(base, 'POST', '/link-card-order/confirmOffline', { token: adminToken, body: { orderNo } });
  if (confirmed.code !== 20000) throw new Error(`coupon order ${orderNo} not confirmed: ${confirmed.message}`);
  const info = await api<{ balance: number }>(base, 'GET', '/push-coupon/info', { token: payerToken });
  return { orderNo, balance: info.data.balance };
}
