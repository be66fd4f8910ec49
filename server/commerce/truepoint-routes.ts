import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/truepoint.ts';
import { type Clock, englishOf, TruePointAccountState, TruePointServiceState } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { platformOrgId } from './order-repository.ts';
import { DAY_MS, TruePointRepository } from './truepoint-repository.ts';

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

/** True-point accounts and equipment (hidden pages with no key listed: any session, own scope). */
export async function truePointRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock }): Promise<void> {
  const { db, clock } = deps;
  const accounts = new TruePointRepository(db);
  const config = { permission: 'session' };
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  /** Accounts in service past their expiry become expired. */
  const settle = (scope: number[]) => accounts.expireDue(scope, clock.now());

  const accountInScope = async (id: number, scope: ReadonlySet<number>) => {
    const row = await accounts.find(id);
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
      if (caller.orgId !== (await platformOrgId(db))) throw new ApiError(ApiCode.Forbidden, 'truePoint.staffOnly');
      const orgId = req.body.orgId ?? caller.orgId;
      if (!caller.scope.has(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      const accountNo = req.body.accountNo.trim();
      const instanceId = req.body.instanceId.trim();
      if (!ACCOUNT_NO.test(accountNo)) throw new ApiError(ApiCode.BadRequest, 'truePoint.accountNo');
      if (!INSTANCE_ID.test(instanceId)) throw new ApiError(ApiCode.BadRequest, 'truePoint.instanceId');
      if (await accounts.accountNoTaken(accountNo)) throw new ApiError(ApiCode.BadRequest, 'truePoint.accountTaken');
      const id = await accounts.create({
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
      });
      return ok({ id, accountNo });
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
      const { total, rows } = await accounts.page(scope, pageNum, pageSize);
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
    if (!(await accounts.activate(row, clock.now()))) throw new ApiError(ApiCode.BadRequest, 'truePoint.notActivatable');
    return ok(null);
  });

  api.post(
    '/true-point/account/state',
    { config, schema: { body: c.TruePointStateBody } },
    async (req) => {
      const row = await accountInScope(req.body.id, callerOf(req).scope);
      await accounts.setAccountState(row.id, req.body.state);
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
      const rows = await accounts.equipment(scope, req.query.accountId ? Number(req.query.accountId) : undefined);
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
      const row = await accounts.findEquipment(req.body.id);
      if (!row || !scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'truePoint.equipmentNotFound');
      await accounts.setEquipmentDisabled(row.id, req.body.disabled);
      return ok(null);
    },
  );
}
