import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/truepoint.ts';
import { type Clock, englishOf, TruePointAccountState, TruePointServiceState } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';

const DAY_MS = 86_400_000;

/** Charge types of a service account (the spec names the field only; the codes are ours). */
export const CHARGE_TYPES = c.CHARGE_TYPES;

export const TruePointMessage = englishOf({
  NotFound: 'truePoint.notFound',
  NotActivatable: 'truePoint.notActivatable',
  EquipmentNotFound: 'truePoint.equipmentNotFound',
  StaffOnly: 'truePoint.staffOnly',
  AccountTaken: 'truePoint.accountTaken',
  AccountNo: 'truePoint.accountNo',
  InstanceId: 'truePoint.instanceId',
});

/** Service account number and instance id forms (ours; the spec names the fields only). */
export const ACCOUNT_NO = /^[A-Za-z0-9_-]{4,32}$/;
export const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Seeds a few service accounts with equipment for an organisation, so the hidden true-point pages have data. */
export async function seedTruePoint(db: Db, orgId: number, now: number): Promise<void> {
  const accounts = [
    { precision: 'CM', charge: 'yearly', days: 365, state: TruePointServiceState.InService, mode: 2, activated: now - 40 * DAY_MS },
    { precision: 'DM', charge: 'monthly', days: 30, state: TruePointServiceState.ToBeActivated, mode: 1, activated: null },
    { precision: 'CM', charge: 'trial', days: 7, state: TruePointServiceState.InService, mode: 1, activated: now - 10 * DAY_MS },
  ];
  for (const [i, a] of accounts.entries()) {
    const row = await db
      .insertInto('truepoint_accounts')
      .values({
        org_id: orgId,
        account_no: `tp${orgId}${String(i + 1).padStart(4, '0')}${randomBytes(2).toString('hex')}`,
        password: randomBytes(6).toString('base64url'),
        instance_id: `inst-${randomBytes(4).toString('hex')}`,
        precision: a.precision,
        charge_type: a.charge,
        duration_days: a.days,
        service_state: a.state,
        activation_mode: a.mode,
        account_state: TruePointAccountState.Enabled,
        times: a.activated ? 1 : 0,
        activated_at: a.activated,
        expire_time: a.activated ? a.activated + a.days * DAY_MS : null,
        created_at: now - 60 * DAY_MS,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (a.activated) {
      await db
        .insertInto('truepoint_equipment')
        .values([0, 1].map((k) => ({ account_id: row.id, equipment_id: `RTK${orgId}${i}${k}${randomBytes(2).toString('hex').toUpperCase()}`, first_used_at: (a.activated ?? now) + k * DAY_MS, created_at: now })))
        .execute();
    }
  }
}

/** True-point accounts and equipment (hidden pages with no key listed: any session, own scope). */
export function registerTruePointRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps;
  const config = { permission: 'session' };
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  /** Accounts in service past their expiry become expired. */
  const settle = (scope: number[]) =>
    db
      .updateTable('truepoint_accounts')
      .set({ service_state: TruePointServiceState.Expired })
      .where('org_id', 'in', scope)
      .where('service_state', '=', TruePointServiceState.InService)
      .where('expire_time', '<=', clock.now())
      .execute();

  const accountInScope = async (id: number, scope: ReadonlySet<number>) => {
    const row = await db.selectFrom('truepoint_accounts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'truePoint.notFound');
    return row;
  };

  // Platform staff open a service account for a customer organisation: it waits for activation (manual or
  // automatic), its password is generated and shown to its owners in the list.
  api.post(
    '/true-point/account/add',
    { config, schema: { body: c.AddTruePointAccountBody } },
    async (req) => {
      const caller = callerOf(req);
      const root = await db.selectFrom('organisations').select('id').where('parent_id', 'is', null).orderBy('id').executeTakeFirst();
      if (caller.orgId !== root?.id) throw new ApiError(ApiCode.Forbidden, 'truePoint.staffOnly');
      const orgId = req.body.orgId ?? caller.orgId;
      if (!caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      const accountNo = req.body.accountNo.trim();
      const instanceId = req.body.instanceId.trim();
      if (!ACCOUNT_NO.test(accountNo)) throw new ApiError(ApiCode.BadRequest, 'truePoint.accountNo');
      if (!INSTANCE_ID.test(instanceId)) throw new ApiError(ApiCode.BadRequest, 'truePoint.instanceId');
      const taken = await db.selectFrom('truepoint_accounts').select('id').where('account_no', '=', accountNo).executeTakeFirst();
      if (taken) throw new ApiError(ApiCode.BadRequest, 'truePoint.accountTaken');
      const row = await db
        .insertInto('truepoint_accounts')
        .values({
          org_id: orgId,
          account_no: accountNo,
          password: randomBytes(6).toString('base64url'),
          instance_id: instanceId,
          precision: req.body.precision,
          charge_type: req.body.chargeType,
          duration_days: req.body.duration,
          service_state: TruePointServiceState.ToBeActivated,
          activation_mode: req.body.activationMode ?? 1,
          account_state: TruePointAccountState.Enabled,
          times: 0,
          activated_at: null,
          expire_time: null,
          created_at: clock.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return ok({ id: row.id, accountNo });
    },
  );

  api.get(
    '/true-point/account/list',
    { config, schema: { querystring: c.TruePointListQuery } },
    async (req) => {
      const scope = [...callerOf(req).scope];
      await settle(scope);
      const now = clock.now();
      const pageNum = Number(req.query.pageNum ?? '1');
      const pageSize = Number(req.query.pageSize ?? '10');
      const q = db.selectFrom('truepoint_accounts').where('org_id', 'in', scope);
      const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
      return ok({
        total,
        list: rows.map((r) => ({
          id: r.id,
          accountNo: r.account_no,
          password: r.password,
          instanceId: r.instance_id,
          precision: r.precision,
          chargeType: r.charge_type,
          duration: r.duration_days,
          residualDays: r.expire_time === null ? r.duration_days : Math.max(0, Math.ceil((r.expire_time - now) / DAY_MS)),
          serviceState: r.service_state,
          activationMode: r.activation_mode,
          accountState: r.account_state,
          times: r.times,
          activatedAt: r.activated_at,
          expireTime: r.expire_time,
        })),
      });
    },
  );

  api.post('/true-point/account/activate', { config, schema: { body: c.TruePointIdBody } }, async (req) => {
    const row = await accountInScope(req.body.id, callerOf(req).scope);
    const now = clock.now();
    const done = await db
      .updateTable('truepoint_accounts')
      .set({ service_state: TruePointServiceState.InService, activated_at: now, expire_time: now + row.duration_days * DAY_MS, times: row.times + 1 })
      .where('id', '=', row.id)
      .where('service_state', '=', TruePointServiceState.ToBeActivated)
      .where('account_state', '=', TruePointAccountState.Enabled)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) throw new ApiError(ApiCode.BadRequest, 'truePoint.notActivatable');
    return ok(null);
  });

  api.post(
    '/true-point/account/state',
    { config, schema: { body: c.TruePointStateBody } },
    async (req) => {
      const row = await accountInScope(req.body.id, callerOf(req).scope);
      await db.updateTable('truepoint_accounts').set({ account_state: req.body.state }).where('id', '=', row.id).execute();
      return ok(null);
    },
  );

  api.get(
    '/true-point/equipment/list',
    { config, schema: { querystring: c.EquipmentListQuery } },
    async (req) => {
      const scope = [...callerOf(req).scope];
      await settle(scope);
      const now = clock.now();
      let q = db
        .selectFrom('truepoint_equipment')
        .innerJoin('truepoint_accounts', 'truepoint_accounts.id', 'truepoint_equipment.account_id')
        .where('truepoint_accounts.org_id', 'in', scope);
      if (req.query.accountId) q = q.where('truepoint_accounts.id', '=', Number(req.query.accountId));
      const rows = await q
        .select(['truepoint_equipment.id', 'equipment_id', 'disabled', 'first_used_at', 'account_no', 'service_state'])
        .orderBy('truepoint_equipment.id')
        .limit(1000)
        .execute();
      return ok({
        total: rows.length,
        list: rows.map((r) => ({
          id: r.id,
          equipmentId: r.equipment_id,
          accountNo: r.account_no,
          status: r.service_state,
          disableStatus: r.disabled === 1 ? TruePointAccountState.Disabled : TruePointAccountState.Enabled,
          usedDays: r.first_used_at === null ? 0 : Math.max(0, Math.floor((now - r.first_used_at) / DAY_MS)),
        })),
      });
    },
  );

  api.post(
    '/true-point/equipment/disable',
    { config, schema: { body: c.DisableEquipmentBody } },
    async (req) => {
      const scope = callerOf(req).scope;
      const row = await db
        .selectFrom('truepoint_equipment')
        .innerJoin('truepoint_accounts', 'truepoint_accounts.id', 'truepoint_equipment.account_id')
        .select(['truepoint_equipment.id', 'truepoint_accounts.org_id'])
        .where('truepoint_equipment.id', '=', req.body.id)
        .executeTakeFirst();
      if (!row || !scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'truePoint.equipmentNotFound');
      await db.updateTable('truepoint_equipment').set({ disabled: req.body.disabled ? 1 : 0 }).where('id', '=', row.id).execute();
      return ok(null);
    },
  );
}
