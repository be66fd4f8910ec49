import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Updateable } from 'kysely';
import * as c from '../../protocol/api/content.ts';
import { type Clock, CustomFirmwareOrderState as S, type CustomFirmwareOrderStateCode, englishOf } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import { pageWindow } from '../http/paging.ts';
import type { CustomFirmwareOrderTable } from './tables.ts';
import { CustomOrderRepository, type CustomOrderRow } from './custom-order-repository.ts';

/** Who may take a step: the ordering customer, or platform staff (an account of the root organisation). */
type Actor = 'customer' | 'platform';

/**
 * The allowed transitions of a custom firmware order (devices-and-commerce section 4 gives the states;
 * the steps between them are ours, written here and in docs/DECISIONS.md). Anything else is refused.
 */
export const ORDER_TRANSITIONS = {
  cancel: { from: [S.Pending, S.ToPay], to: S.Cancelled, by: 'customer' },
  refuse: { from: [S.Pending], to: S.Refused, by: 'platform' },
  quote: { from: [S.Pending], to: S.ToPay, by: 'platform' },
  payOffline: { from: [S.ToPay], to: S.PayPending, by: 'customer' },
  confirmPayment: { from: [S.PayPending], to: S.Paid, by: 'platform' },
  rejectPayment: { from: [S.PayPending], to: S.ToPay, by: 'platform' },
  finishDevelopment: { from: [S.Paid], to: S.DevelopmentFinished, by: 'platform' },
  confirmFinish: { from: [S.DevelopmentFinished], to: S.AllFinished, by: 'customer' },
} as const satisfies Record<c.CustomOrderAction, { from: readonly CustomFirmwareOrderStateCode[]; to: CustomFirmwareOrderStateCode; by: Actor }>;
export type OrderAction = keyof typeof ORDER_TRANSITIONS;

export const OrderMessage = englishOf({
  Gone: 'customOrder.gone',
  NotAllowed: 'customOrder.notAllowed',
  PlatformOnly: 'customOrder.platformOnly',
  CustomerOnly: 'customOrder.customerOnly',
  AmountRequired: 'customOrder.amountRequired',
  ReasonRequired: 'customOrder.reasonRequired',
});

function view(r: CustomOrderRow): c.CustomOrderView {
  return {
    id: r.id,
    orderNo: r.order_no,
    orgId: r.org_id,
    title: r.title,
    description: r.description,
    state: r.state,
    amount: r.amount_cents / 100,
    actualAmount: r.actual_amount_cents / 100,
    deadline: r.deadline === null ? null : Number(r.deadline),
    attachmentId: r.attachment_id,
    attachmentDescription: r.attachment_description,
    assessment: r.assessment,
    refuseReason: r.refuse_reason,
    time: Number(r.created_at),
    updateTime: Number(r.updated_at),
  };
}

/** Custom firmware orders: apply with an optional attachment (from the uploads plugin's file store), view, and the state steps above. */
export async function customOrderRoutes(app: FastifyInstance, opts: { readonly db: Db; readonly clock: Clock }): Promise<void> {
  const { clock } = opts;
  const uploads = app.uploads;
  const orders = new CustomOrderRepository(opts.db);
  const isPlatform = (caller: Caller) => orders.isPlatformOrg(caller.orgId);
  // Requests typed from the contract's schemas (protocol/api/content.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/custom-made-img/list',
    { config: { permission: 'custom-made-img_list' }, schema: { body: c.CustomOrderListBody } },
    async (req) => {
      const { total, rows } = await orders.page([...callerOf(req).scope], req.body.state, pageWindow(req.body));
      return ok({ total, list: rows.map(view) });
    },
  );

  api.get('/custom-made-img/detail/:id', { config: { permission: 'custom-made-img_list' }, schema: { params: c.CustomOrderPath } }, async (req) => {
    const row = await orders.find(idOf(req.params.id));
    if (!row) throw new ApiError(ApiCode.NotFound, 'customOrder.gone');
    if (!callerOf(req).scope.has(row.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    return ok(view(row));
  });

  api.post(
    '/custom-made-img/apply',
    {
      config: { permission: 'custom-made-img_apply' },
      schema: { body: c.ApplyCustomOrderBody },
    },
    async (req) => {
      const caller = callerOf(req);
      const now = clock.now();
      let attachmentId: number | null = null;
      if (req.body.attachmentUploadId) {
        const file = await uploads.take(req.body.attachmentUploadId, caller, ['attachment']);
        attachmentId = await orders.addAttachment({ kind: 'attachment', org_id: caller.orgId, account_id: caller.accountId, parent_id: null, name: file.fileName, file_name: file.fileName, size: file.size, sha256: file.sha256, created_at: now, updated_at: now });
      }
      const row = await orders.insert({
        order_no: `CM${now}${caller.orgId}${Math.floor(Math.random() * 1e4).toString().padStart(4, '0')}`,
        org_id: caller.orgId,
        account_id: caller.accountId,
        title: cleanText(req.body.title, 'field.title', true),
        description: cleanText(req.body.description, 'field.description', false),
        state: S.Pending,
        deadline: req.body.deadline ?? null,
        attachment_id: attachmentId,
        attachment_description: cleanText(req.body.attachmentDescription, 'field.attachmentDescription', false),
        created_at: now,
        updated_at: now,
      });
      return ok(view(row));
    },
  );

  api.post(
    '/custom-made-img/transition',
    { config: { permission: 'custom-made-img_list' }, schema: { body: c.CustomOrderStepBody } },
    async (req) => {
      const caller = callerOf(req);
      const row = await orders.find(req.body.id);
      if (!row) throw new ApiError(ApiCode.NotFound, 'customOrder.gone');
      if (!caller.scope.has(row.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      const step = ORDER_TRANSITIONS[req.body.action];
      const platform = await isPlatform(caller);
      if (step.by === 'platform' && !platform) throw new ApiError(ApiCode.Forbidden, 'customOrder.platformOnly');
      if (step.by === 'customer' && (!caller.permissions.has('custom-made-img_apply') || (row.org_id !== caller.orgId && !platform))) throw new ApiError(ApiCode.Forbidden, 'customOrder.customerOnly');
      if (!(step.from as readonly number[]).includes(row.state)) throw new ApiError(ApiCode.BadRequest, 'customOrder.notAllowed');
      const set: Updateable<CustomFirmwareOrderTable> = { state: step.to, updated_at: clock.now() };
      if (req.body.action === 'quote') {
        if (req.body.amount === undefined) throw new ApiError(ApiCode.BadRequest, 'customOrder.amountRequired');
        set.amount_cents = Math.round(req.body.amount * 100);
        set.assessment = cleanText(req.body.assessment, 'field.assessment', false);
      }
      if (req.body.action === 'refuse') {
        const reason = cleanText(req.body.refuseReason, 'field.refuseReason', false);
        if (!reason) throw new ApiError(ApiCode.BadRequest, 'customOrder.reasonRequired');
        set.refuse_reason = reason;
      }
      if (req.body.action === 'confirmPayment') set.actual_amount_cents = row.amount_cents;
      // The state in the WHERE makes two racing steps on one order take effect once.
      const after = await orders.step(row.id, row.state, set);
      if (!after) throw new ApiError(ApiCode.BadRequest, 'customOrder.notAllowed');
      return ok(view(after));
    },
  );
}
