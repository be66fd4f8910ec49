import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/cards.ts';
import { AddressSource, type Clock, englishOf, GroupAddressState, ImportType, ruleMessageKey } from '../../protocol/index.ts';
import type { CarrierProvider } from '../carrier/carrier.ts';
import { ADDRESS_APPLY_MS } from '../carrier/simulated-carrier.ts';
import type { Db } from '../db/database.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText } from '../http/validation.ts';
import { checkAddress } from '../../protocol/index.ts';
import { PRESET_ADDRESSES } from './seed-inventory.ts';

/** Custom (user-defined) addresses a group may hold (devices-and-commerce section 5). */
export const MAX_CUSTOM_ADDRESSES = 10;

export const GroupMessage = englishOf({
  NotFound: 'cardGroup.notFound',
  TooMany: 'cardGroup.tooMany',
  Duplicate: 'cardGroup.duplicate',
  HasCards: 'cardGroup.hasCards',
  AddressNotFound: 'cardGroup.addressNotFound',
  AddressBusy: 'cardGroup.addressBusy',
});

export interface GroupRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly carrier: CarrierProvider;
}

const presetSet: ReadonlySet<string> = new Set(PRESET_ADDRESSES.map((p) => p.address));

/** Directional groups and their target addresses (devices-and-commerce sections 3-5). */
export function registerGroupRoutes(app: FastifyInstance, deps: GroupRouteDeps): void {
  const { db, clock, carrier } = deps;

  /** Pending address changes the carrier has applied by now: adding ones become added, removing ones go. */
  const settle = async (groupIds: readonly number[]) => {
    if (groupIds.length === 0) return;
    const now = clock.now();
    await db.updateTable('direction_addresses').set({ state: GroupAddressState.Added }).where('group_id', 'in', groupIds).where('state', '=', GroupAddressState.Adding).where('effective_at', '<=', now).execute();
    await db.deleteFrom('direction_addresses').where('group_id', 'in', groupIds).where('state', '=', GroupAddressState.Removing).where('effective_at', '<=', now).execute();
  };

  const groupInScope = async (id: number, scope: ReadonlySet<number>) => {
    const group = await db.selectFrom('direction_groups').selectAll().where('id', '=', id).executeTakeFirst();
    if (!group || !scope.has(group.org_id)) throw new ApiError(ApiCode.NotFound, 'cardGroup.notFound');
    return group;
  };

  // Requests typed from the contract's schemas (protocol/api/cards.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const groupKey = { permission: 'linkCard_linkCardDirectionGroupList' };
  const addressKey = { permission: 'linkCard_listDirectionalAddress' };

  api.get(
    '/linkCard/linkCardDirectionGroupList',
    { config: groupKey, schema: { querystring: c.GroupListQuery } },
    async (req) => {
      const scope = [...callerOf(req).scope];
      const pageNum = Number(req.query.pageNum ?? '1');
      const pageSize = Number(req.query.pageSize ?? '10');
      let q = db.selectFrom('direction_groups').where('org_id', 'in', scope);
      const name = req.query.name?.trim();
      if (name) q = q.where(containsIgnoringCase('name', name));
      const total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute();
      const ids = rows.map((r) => r.id);
      await settle(ids);
      const addressCounts = ids.length
        ? await db.selectFrom('direction_addresses').select(['group_id', 'source', (eb) => eb.fn.countAll<number>().as('n')]).where('group_id', 'in', ids).groupBy(['group_id', 'source']).execute()
        : [];
      const cardCounts = ids.length ? await db.selectFrom('sim_cards').select(['group_id', (eb) => eb.fn.countAll<number>().as('n')]).where('group_id', 'in', ids).groupBy('group_id').execute() : [];
      const list = rows.map((g) => ({
        id: g.id,
        orgId: g.org_id,
        name: g.name,
        remark: g.remark,
        createdAt: g.created_at,
        customCount: Number(addressCounts.find((c) => c.group_id === g.id && c.source === AddressSource.UserDefined)?.n ?? 0),
        presetCount: Number(addressCounts.find((c) => c.group_id === g.id && c.source === AddressSource.AliyunDefined)?.n ?? 0),
        cardCount: Number(cardCounts.find((c) => c.group_id === g.id)?.n ?? 0),
      }));
      return ok({ total, list });
    },
  );

  api.post('/linkCard/addDirectionGroup', { config: groupKey, schema: { body: c.GroupBody } }, async (req) => {
    const caller = callerOf(req);
    const name = cleanText(req.body.name, 'field.name', true);
    const remark = cleanText(req.body.remark, 'field.remark', false);
    const row = await db.insertInto('direction_groups').values({ org_id: caller.orgId, name, remark, created_at: clock.now() }).returning('id').executeTakeFirstOrThrow();
    return ok({ id: row.id });
  });

  api.post('/linkCard/updateDirectionGroup', { config: groupKey, schema: { body: c.GroupBody } }, async (req) => {
    const caller = callerOf(req);
    const group = await groupInScope(req.body.id ?? 0, caller.scope);
    const name = cleanText(req.body.name, 'field.name', true);
    const remark = cleanText(req.body.remark, 'field.remark', false);
    await db.updateTable('direction_groups').set({ name, remark }).where('id', '=', group.id).execute();
    return ok(null);
  });

  api.delete('/linkCard/delDirectionGroup', { config: groupKey, schema: { body: c.CardIdBody } }, async (req) => {
    const group = await groupInScope(req.body.id, callerOf(req).scope);
    const card = await db.selectFrom('sim_cards').select('id').where('group_id', '=', group.id).executeTakeFirst();
    if (card) throw new ApiError(ApiCode.BadRequest, 'cardGroup.hasCards');
    await db.deleteFrom('direction_groups').where('id', '=', group.id).execute();
    return ok(null);
  });

  api.get('/linkCard/listDirectionalAddress', { config: addressKey, schema: { querystring: c.AddressListQuery } }, async (req) => {
    const group = await groupInScope(Number(req.query.groupId), callerOf(req).scope);
    await settle([group.id]);
    const rows = await db.selectFrom('direction_addresses').selectAll().where('group_id', '=', group.id).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    return ok({
      group: { id: group.id, name: group.name, remark: group.remark },
      maxCustom: MAX_CUSTOM_ADDRESSES,
      applyDelayMs: ADDRESS_APPLY_MS,
      presets: PRESET_ADDRESSES,
      list: rows.map((r) => ({
        id: r.id,
        address: r.address,
        addressType: r.address_type,
        description: r.description,
        source: r.source,
        importType: r.import_type,
        state: r.state,
        effectiveAt: r.effective_at,
        createdAt: r.created_at,
      })),
    });
  });

  api.post('/linkCard/addDirectionalAddress', { config: addressKey, schema: { body: c.AddressBody } }, async (req) => {
    const group = await groupInScope(req.body.groupId, callerOf(req).scope);
    const address = req.body.address.trim().toLowerCase();
    if (!address) throw new ApiError(ApiCode.BadRequest, 'common.required');
    const wrong = checkAddress(req.body.addressType, address);
    if (wrong) throw new ApiError(ApiCode.BadRequest, ruleMessageKey(wrong));
    const description = cleanText(req.body.description, 'field.description', false);
    // A preset cloud-provider address is the carrier's own (aliyun_defined) and not one of the 10 custom ones.
    const source = req.body.addressType === 'domain' && presetSet.has(address) ? AddressSource.AliyunDefined : AddressSource.UserDefined;
    await settle([group.id]);
    const existing = await db.selectFrom('direction_addresses').select(['address', 'source', 'state']).where('group_id', '=', group.id).execute();
    if (existing.some((e) => e.address === address && e.state !== GroupAddressState.AddFailed)) throw new ApiError(ApiCode.BadRequest, 'cardGroup.duplicate');
    const custom = existing.filter((e) => e.source === AddressSource.UserDefined && e.state !== GroupAddressState.AddFailed).length;
    if (source === AddressSource.UserDefined && custom >= MAX_CUSTOM_ADDRESSES) throw new ApiError(ApiCode.BadRequest, 'cardGroup.tooMany');
    const { effectiveAt } = await carrier.submitAddress({ groupId: group.id, address, op: 'add' });
    const row = await db
      .insertInto('direction_addresses')
      .values({
        group_id: group.id,
        address,
        address_type: req.body.addressType,
        description,
        source,
        import_type: req.body.importType ?? ImportType.New,
        state: GroupAddressState.Adding,
        effective_at: effectiveAt,
        created_at: clock.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return ok({ id: row.id, state: GroupAddressState.Adding, effectiveAt });
  });

  api.delete('/linkCard/delDirectionalAddress', { config: addressKey, schema: { body: c.CardIdBody } }, async (req) => {
    const row = await db.selectFrom('direction_addresses').selectAll().where('id', '=', req.body.id).executeTakeFirst();
    if (!row) throw new ApiError(ApiCode.NotFound, 'cardGroup.addressNotFound');
    const group = await groupInScope(row.group_id, callerOf(req).scope);
    await settle([group.id]);
    // A failed add never reached the carrier: it goes at once. Pending changes must settle first.
    if (row.state === GroupAddressState.AddFailed) {
      await db.deleteFrom('direction_addresses').where('id', '=', row.id).execute();
      return ok(null);
    }
    const current = await db.selectFrom('direction_addresses').select('state').where('id', '=', row.id).executeTakeFirst();
    if (!current) return ok(null);
    if (current.state !== GroupAddressState.Added && current.state !== GroupAddressState.DeleteFailed) throw new ApiError(ApiCode.BadRequest, 'cardGroup.addressBusy');
    const { effectiveAt } = await carrier.submitAddress({ groupId: group.id, address: row.address, op: 'remove' });
    await db.updateTable('direction_addresses').set({ state: GroupAddressState.Removing, effective_at: effectiveAt }).where('id', '=', row.id).execute();
    return ok(null);
  });
}
