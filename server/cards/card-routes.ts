import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Carrier, type Clock, englishOf, SpringCardAction } from '../../protocol/index.ts';
import { type CardFamilyCode, type CarrierProvider, carrierRefusalKey } from '../carrier/carrier.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { chinaDay, MOBILE_DAILY_ACTIONS } from './card-codes.ts';
import { carrierCardOf, type CardFilter, CardRepository, cardView } from './card-repository.ts';
import * as s from './schemas.ts';

export const CardMessage = englishOf({
  NotFound: 'card.notFound',
  DailyLimit: 'card.dailyLimit',
  GroupNotFound: 'card.groupNotFound',
  NotDirectional: 'card.notDirectional',
});

export interface CardRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly carrier: CarrierProvider;
}

/** True when a stop or restart of this card counts against the 2-a-day allowance (section 9). */
export function dailyLimited(family: CardFamilyCode, carrier: string): boolean {
  return family === 'spring' && carrier === Carrier.ChinaMobile;
}

/** Paths are ours in the style of platform-core section 7, named after their permission keys (docs/DECISIONS.md). */
export function registerCardRoutes(app: FastifyInstance, deps: CardRouteDeps): void {
  const { clock, carrier } = deps;
  const cards = new CardRepository(deps.db);

  const list = (family: CardFamilyCode) => async (req: FastifyRequest<{ Querystring: s.CardListQuery }>) => {
    const caller = callerOf(req);
    const scope = [...caller.scope];
    await cards.sync(carrier, scope, family);
    const q = req.query;
    const filter: CardFilter = {
      family,
      scope,
      iccid: q.iccid?.trim() || undefined,
      msisdn: q.msisdn?.trim() || undefined,
      carrier: q.carrier,
      status: q.status,
      comboType: q.comboType,
      realStatus: q.realStatus === undefined ? undefined : Number(q.realStatus),
      groupId: q.groupId === undefined ? undefined : Number(q.groupId),
    };
    const { total, rows } = await cards.page(filter, Number(q.pageNum ?? '1'), Number(q.pageSize ?? '10'));
    const now = clock.now();
    return ok({ total, list: rows.map((r) => ({ ...cardView(r, now), actionsLeftToday: actionsLeft(r.family as CardFamilyCode, r.carrier, r.action_day, r.action_count, now) })) });
  };

  const changeStatus = (family: CardFamilyCode) => async (req: FastifyRequest<{ Body: s.ChangeStatusBody }>) => {
    const caller = callerOf(req);
    const row = await cards.byIccid(req.body.iccid, [...caller.scope]);
    if (!row || row.family !== family) throw new ApiError(ApiCode.NotFound, 'card.notFound');
    const limited = dailyLimited(family, row.carrier);
    const day = chinaDay(clock.now());
    if (limited && !(await cards.takeAction(row.id, day, MOBILE_DAILY_ACTIONS))) throw new ApiError(ApiCode.BadRequest, 'card.dailyLimit');
    const outcome = await carrier.act(carrierCardOf(row), req.body.action === SpringCardAction.Shutdown ? 'stop' : 'restart');
    if (!outcome.ok) {
      if (limited) await cards.returnAction(row.id, day);
      throw new ApiError(ApiCode.BadRequest, carrierRefusalKey(outcome.message));
    }
    const stored = await cards.store(row, outcome.card, caller.account);
    return ok(cardView(stored, clock.now()));
  };

  app.get<{ Querystring: s.CardListQuery }>('/springCard/list', { config: { permission: 'springCard_list' }, schema: { querystring: s.springListQuery } }, list('spring'));
  app.post<{ Body: s.ChangeStatusBody }>('/springCard/changeStatus', { config: { permission: 'springCard_list' }, schema: { body: s.changeStatusBody } }, changeStatus('spring'));
  app.get<{ Querystring: s.CardListQuery }>('/linkCard/listCardInfo', { config: { permission: 'linkCard_listCardInfo' }, schema: { querystring: s.linkListQuery } }, list('link'));
  app.post<{ Body: s.ChangeStatusBody }>('/linkCard/changeStatus', { config: { permission: 'linkCard_listCardInfo' }, schema: { body: s.changeStatusBody } }, changeStatus('link'));
  app.get<{ Querystring: s.CardListQuery }>('/zxj/list', { config: { permission: 'zxj_list' }, schema: { querystring: s.juxinListQuery } }, list('juxin'));
  app.post<{ Body: s.ChangeStatusBody }>('/zxj/changeStatus', { config: { permission: 'zxj_list' }, schema: { body: s.changeStatusBody } }, changeStatus('juxin'));

  app.get<{ Params: { iccid: string } }>('/linkCard/getCardDetail/:iccid', { config: { permission: 'linkCard_getCardDetail' }, schema: { params: s.iccidParams } }, async (req) => {
    const caller = callerOf(req);
    let row = await cards.byIccid(req.params.iccid, [...caller.scope]);
    if (!row) throw new ApiError(ApiCode.NotFound, 'card.notFound');
    const fresh = await carrier.refresh(carrierCardOf(row));
    if (fresh.statusChangedAt !== row.status_changed_at) row = await cards.store(row, fresh, '');
    const now = clock.now();
    const group = row.group_id === null ? undefined : await deps.db.selectFrom('direction_groups').select(['id', 'name']).where('id', '=', row.group_id).executeTakeFirst();
    return ok({
      ...cardView(row, now),
      groupName: group?.name ?? '',
      actionsLeftToday: actionsLeft(row.family as CardFamilyCode, row.carrier, row.action_day, row.action_count, now),
      events: await cards.events(row.id),
    });
  });

  app.post<{ Body: { iccid: string } }>('/linkCard/intelligentTest', { config: { permission: 'linkCard_getCardDetail' }, schema: { body: s.iccidBody } }, async (req) => {
    const caller = callerOf(req);
    const row = await cards.byIccid(req.body.iccid, [...caller.scope]);
    if (!row) throw new ApiError(ApiCode.NotFound, 'card.notFound');
    const card = carrierCardOf(row);
    const now = clock.now();
    const checks = [...(await carrier.diagnose(card))];
    // The platform's half: what a card needs beyond the carrier's network.
    checks.push({ code: 'apn', passed: row.apn !== '', detail: row.apn || 'no APN set', facts: { apn: row.apn } });
    checks.push({ code: 'certification', passed: row.certification !== 'none', detail: row.certification, facts: { certification: row.certification } });
    checks.push({ code: 'expiry', passed: row.expire_time > now, detail: new Date(row.expire_time).toISOString(), facts: { at: row.expire_time } });
    if (/D$|^UPG$/.test(row.combo_type)) {
      const added = row.group_id === null ? undefined : await deps.db.selectFrom('direction_addresses').select('id').where('group_id', '=', row.group_id).where('state', '=', 500).where('effective_at', '<=', now).executeTakeFirst();
      checks.push({ code: 'directional', passed: added !== undefined, detail: row.group_id === null ? 'no directional group' : 'group has working addresses', facts: { hasGroup: row.group_id !== null } });
    }
    return ok({ iccid: row.iccid, testedAt: now, passed: checks.every((c) => c.passed), checks });
  });

  app.post<{ Body: s.BindGroupBody }>('/linkCard/bindGroup', { config: { permission: 'linkCard_listCardInfo' }, schema: { body: s.bindGroupBody } }, async (req) => {
    const caller = callerOf(req);
    const scope = [...caller.scope];
    const row = await cards.byIccid(req.body.iccid, scope);
    if (!row || row.family !== 'link') throw new ApiError(ApiCode.NotFound, 'card.notFound');
    if (req.body.groupId !== null) {
      if (!/D$|^UPG$/.test(row.combo_type)) throw new ApiError(ApiCode.BadRequest, 'card.notDirectional');
      const group = await deps.db.selectFrom('direction_groups').select('id').where('id', '=', req.body.groupId).where('org_id', 'in', scope).executeTakeFirst();
      if (!group) throw new ApiError(ApiCode.NotFound, 'card.groupNotFound');
    }
    await deps.db.updateTable('sim_cards').set({ group_id: req.body.groupId }).where('id', '=', row.id).execute();
    return ok(null);
  });
}

/** Stops and restarts left today for a limited card; null when the card has no daily limit. */
function actionsLeft(family: CardFamilyCode, carrier: string, day: number, count: number, now: number): number | null {
  if (!dailyLimited(family, carrier)) return null;
  return day === chinaDay(now) ? Math.max(0, MOBILE_DAILY_ACTIONS - count) : MOBILE_DAILY_ACTIONS;
}
