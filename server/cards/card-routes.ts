import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as c from '../../protocol/api/cards.ts';
import { Carrier, type Clock, englishOf, SpringCardAction } from '../../protocol/index.ts';
import { type CardFamilyCode, type CarrierProvider, carrierRefusalKey } from '../carrier/carrier.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { chinaDay, MOBILE_DAILY_ACTIONS } from './card-codes.ts';
import { carrierCardOf, type CardFilter, CardRepository, cardView } from './card-repository.ts';

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
export async function cardRoutes(app: FastifyInstance, deps: CardRouteDeps): Promise<void> {
  const { clock, carrier } = deps;
  const cards = new CardRepository(deps.db);
  // Requests typed from the contract's schemas (protocol/api/cards.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const list = (family: CardFamilyCode) => async (req: FastifyRequest<{ Querystring: c.CardListQuery }>) => {
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

  const changeStatus = (family: CardFamilyCode) => async (req: FastifyRequest<{ Body: c.ChangeStatusBody }>) => {
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

  app.get<{ Querystring: c.CardListQuery }>('/springCard/list', { config: { permission: 'springCard_list' }, schema: { querystring: c.SpringCardListQuery } }, list('spring'));
  api.post('/springCard/changeStatus', { config: { permission: 'springCard_list' }, schema: { body: c.ChangeStatusBody } }, changeStatus('spring'));
  api.get('/linkCard/listCardInfo', { config: { permission: 'linkCard_listCardInfo' }, schema: { querystring: c.LinkCardListQuery } }, list('link'));
  api.post('/linkCard/changeStatus', { config: { permission: 'linkCard_listCardInfo' }, schema: { body: c.ChangeStatusBody } }, changeStatus('link'));
  app.get<{ Querystring: c.CardListQuery }>('/zxj/list', { config: { permission: 'zxj_list' }, schema: { querystring: c.JuxinCardListQuery } }, list('juxin'));
  api.post('/zxj/changeStatus', { config: { permission: 'zxj_list' }, schema: { body: c.ChangeStatusBody } }, changeStatus('juxin'));

  api.get('/linkCard/getCardDetail/:iccid', { config: { permission: 'linkCard_getCardDetail' }, schema: { params: c.IccidPath } }, async (req) => {
    const caller = callerOf(req);
    let row = await cards.byIccid(req.params.iccid, [...caller.scope]);
    if (!row) throw new ApiError(ApiCode.NotFound, 'card.notFound');
    const fresh = await carrier.refresh(carrierCardOf(row));
    if (fresh.statusChangedAt !== row.status_changed_at) row = await cards.store(row, fresh, '');
    const now = clock.now();
    const detail: c.CardDetail = {
      ...cardView(row, now),
      groupName: row.group_id === null ? '' : await cards.groupName(row.group_id),
      actionsLeftToday: actionsLeft(row.family as CardFamilyCode, row.carrier, row.action_day, row.action_count, now),
      events: await cards.events(row.id),
    };
    return ok(detail);
  });

  api.post('/linkCard/intelligentTest', { config: { permission: 'linkCard_getCardDetail' }, schema: { body: c.IccidBody } }, async (req) => {
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
      const working = row.group_id !== null && (await cards.hasWorkingAddress(row.group_id, now));
      checks.push({ code: 'directional', passed: working, detail: row.group_id === null ? 'no directional group' : 'group has working addresses', facts: { hasGroup: row.group_id !== null } });
    }
    const report: c.DiagnosisReport = { iccid: row.iccid, testedAt: now, passed: checks.every((check) => check.passed), checks };
    return ok(report);
  });

  api.post('/linkCard/bindGroup', { config: { permission: 'linkCard_listCardInfo' }, schema: { body: c.BindGroupBody } }, async (req) => {
    const caller = callerOf(req);
    const scope = [...caller.scope];
    const row = await cards.byIccid(req.body.iccid, scope);
    if (!row || row.family !== 'link') throw new ApiError(ApiCode.NotFound, 'card.notFound');
    if (req.body.groupId !== null) {
      if (!/D$|^UPG$/.test(row.combo_type)) throw new ApiError(ApiCode.BadRequest, 'card.notDirectional');
      if (!(await cards.groupInScope(req.body.groupId, scope))) throw new ApiError(ApiCode.NotFound, 'card.groupNotFound');
    }
    await cards.setGroup(row.id, req.body.groupId);
    return ok(null);
  });
}

/** Stops and restarts left today for a limited card; null when the card has no daily limit. */
function actionsLeft(family: CardFamilyCode, carrier: string, day: number, count: number, now: number): number | null {
  if (!dailyLimited(family, carrier)) return null;
  return day === chinaDay(now) ? Math.max(0, MOBILE_DAILY_ACTIONS - count) : MOBILE_DAILY_ACTIONS;
}
