import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Online payment goes through a provider adapter, as carriers do: the sandbox one when PAYMENT_SANDBOX=on
 * (none otherwise), a real Alipay adapter later without touching routes. The provider opens trades and verifies the notification
 * the payment service sends when a trade is paid; the order service settles the order from that.
 */
export interface PaymentProvider {
  readonly name: string;
  /** True for a provider whose payments the console may complete itself (the sandbox). */
  readonly sandbox: boolean;
  openTrade(order: { orderNo: string; amount: number; subject: string }): Promise<{ tradeNo: string; payUrl: string }>;
  /** The trade a genuine notification settles, or undefined for a forged or malformed one. */
  verifyNotification(fields: Readonly<Record<string, string>>): PaidTrade | undefined;
}

export interface PaidTrade {
  readonly tradeNo: string;
  readonly orderNo: string;
  readonly amount: number;
}

/** A payment service in-process: it signs its own notifications, so the notify route verifies real signatures. */
export class SandboxPayment implements PaymentProvider {
  readonly name = 'sandbox';
  readonly sandbox = true;
  // Per process: a sandbox payment is opened, paid and notified within one node's requests.
  readonly #secret = randomBytes(32);

  async openTrade(_order: { orderNo: string; amount: number }): Promise<{ tradeNo: string; payUrl: string }> {
    return { tradeNo: `SBX${randomBytes(8).toString('hex').toUpperCase()}`, payUrl: '' };
  }

  /** What the payment service would post to the notify URL once the payer has paid the trade. */
  notificationFor(trade: PaidTrade): Record<string, string> {
    const fields = { trade_no: trade.tradeNo, out_trade_no: trade.orderNo, total_amount: String(trade.amount), trade_status: 'TRADE_SUCCESS' };
    return { ...fields, sign: this.#sign(fields) };
  }

  verifyNotification(fields: Readonly<Record<string, string>>): PaidTrade | undefined {
    const { sign, ...rest } = fields;
    if (!sign || rest.trade_status !== 'TRADE_SUCCESS') return undefined;
    const expected = Buffer.from(this.#sign(rest));
    const given = Buffer.from(sign);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const amount = Number(rest.total_amount);
    if (!rest.trade_no || !rest.out_trade_no || !Number.isSafeInteger(amount)) return undefined;
    return { tradeNo: rest.trade_no, orderNo: rest.out_trade_no, amount };
  }

  #sign(fields: Readonly<Record<string, string | undefined>>): string {
    const text = Object.keys(fields)
      .sort()
      .map((k) => `${k}=${fields[k] ?? ''}`)
      .join('&');
    return createHmac('sha256', this.#secret).update(text).digest('hex');
  }
}
