import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/campaigns.ts';
import { type Clock, msg } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { pageWindow } from '../http/paging.ts';
import { hotAction } from '../http/rate-limit.ts';
import { couponInfo, couponLedger, MIN_RECHARGE, openRechargeOrder, unpaidRechargeOrders } from './coupons.ts';

/** Push coupons (/push-coupon/*): the organisation's balance, buying more, and the ledger. */
export function registerCouponRoutes(app: FastifyInstance, deps: { readonly db: Db; readonly clock: Clock }): void {
  const { db } = deps;
  // Requests typed from the contract's schemas (protocol/api/campaigns.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // With the coupon orders still to pay, so the coupon page can take the buyer to paying them.
  app.get('/push-coupon/info', { config: { permission: 'custom-made-img_push-log' } }, async (req) => {
    const orgId = callerOf(req).orgId;
    return ok({ ...(await couponInfo(db, orgId)), unpaid: await unpaidRechargeOrders(db, orgId) });
  });

  api.post(
    '/push-coupon/recharge',
    { config: { permission: 'custom-made-img_push-log', ...hotAction }, schema: { body: c.CouponRechargeBody } },
    async (req) => {
      if (req.body.count < MIN_RECHARGE) throw new ApiError(ApiCode.BadRequest, msg('coupon.minRecharge', { min: MIN_RECHARGE }));
      // An order to pay like any other (/pay-data/pay); the coupons are credited when it is settled.
      const caller = callerOf(req);
      return ok({ ...(await openRechargeOrder(db, caller.orgId, caller.account, req.body.count, deps.clock.now())), purchaseType: 'push_ticket' });
    },
  );

  api.post(
    '/push-coupon/ledger',
    { config: { permission: 'custom-made-img_push-log' }, schema: { body: c.PagingBody } },
    async (req) => {
      const orgId = callerOf(req).orgId;
      const { limit, offset } = pageWindow(req.body);
      const { total, rows } = await couponLedger(db, orgId, limit, offset);
      return ok({
        total,
        list: rows.map((r) => ({ id: r.id, delta: r.delta, reason: r.reason, orderNo: r.order_no, amount: r.amount_cents / 100, campaignId: r.campaign_id, sn: r.sn, createTime: Number(r.created_at) })),
      });
    },
  );
}
