import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/cards.ts';
import { AddressSource, type Clock, englishOf, GroupAddressState, ImportType, ruleMessageKey } from '../../protocol/index.ts';
import type { CarrierProvider } from '../carrier/carrier.ts';
import { ADDRESS_APPLY_MS } from '../carrier/simulated-carrier.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText } from '../http/validation.ts';
import { checkAddress } from '../../protocol/index.ts';
import { DirectionGroupRepository } from './group-repository.ts';
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
export async function directionGroupRoutes(app: FastifyInstance, deps: GroupRouteDeps): Promise<void> {
  const { clock, carrier } = deps;
  const groups = new DirectionGroupRepository(deps.db);

  /** Pending address changes the carrier has applied by now: adding ones become added, removing ones go. */
  const settle = (groupIds: readonly number[]) => groups.settle(groupIds, clock.now());

  const groupInScope = async (id: number, scope: ReadonlySet<number>) => {
    const group = await groups.find(id);
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
      const { total, rows } = await groups.page(scope, req.query.name?.trim(), pageNum, pageSize);
      const ids = rows.map((r) => r.id);
      await settle(ids);
      const { addresses: addressCounts, cards: cardCounts } = await groups.counts(ids);
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
    return ok({ id: await groups.create({ orgId: caller.orgId, name, remark, createdAt: clock.now() }) });
  });

  api.post('/linkCard/updateDirectionGroup', { config: groupKey, schema: { body: c.GroupBody } }, async (req) => {
    const caller = callerOf(req);
    const group = await groupInScope(req.body.id ?? 0, caller.scope);
    const name = cleanText(req.body.name, 'field.name', true);
    const remark = cleanText(req.body.remark, 'field.remark', false);
    await groups.update(group.id, name, remark);
    return ok(null);
  });

  api.delete('/linkCard/delDirectionGroup', { config: groupKey, schema: { body: c.CardIdBody } }, async (req) => {
    const group = await groupInScope(req.body.id, callerOf(req).scope);
    if (await groups.hasCards(group.id)) throw new ApiError(ApiCode.BadRequest, 'cardGroup.hasCards');
    await groups.delete(group.id);
    return ok(null);
  });

  api.get('/linkCard/listDirectionalAddress', { config: addressKey, schema: { querystring: c.AddressListQuery } }, async (req) => {
    const group = await groupInScope(Number(req.query.groupId), callerOf(req).scope);
    await settle([group.id]);
    const rows = await groups.addresses(group.id);
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
    const existing = await groups.addressKeys(group.id);
    if (existing.some((e) => e.address === address && e.state !== GroupAddressState.AddFailed)) throw new ApiError(ApiCode.BadRequest, 'cardGroup.duplicate');
    const custom = existing.filter((e) => e.source === AddressSource.UserDefined && e.state !== GroupAddressState.AddFailed).length;
    if (source === AddressSource.UserDefined && custom >= MAX_CUSTOM_ADDRESSES) throw new ApiError(ApiCode.BadRequest, 'cardGroup.tooMany');
    const { effectiveAt } = await carrier.submitAddress({ groupId: group.id, address, op: 'add' });
    const id = await groups.addAddress({
      group_id: group.id,
      address,
      address_type: req.body.addressType,
      description,
      source,
      import_type: req.body.importType ?? ImportType.New,
      state: GroupAddressState.Adding,
      effective_at: effectiveAt,
      created_at: clock.now(),
    });
    return ok({ id, state: GroupAddressState.Adding, effectiveAt });
  });

  api.delete('/linkCard/delDirectionalAddress', { config: addressKey, schema: { body: c.CardIdBody } }, async (req) => {
    const row = await groups.findAddress(req.body.id);
    if (!row) throw new ApiError(ApiCode.NotFound, 'cardGroup.addressNotFound');
    const group = await groupInScope(row.group_id, callerOf(req).scope);
    await settle([group.id]);
    // A failed add never reached the carrier: it goes at once. Pending changes must settle first.
    if (row.state === GroupAddressState.AddFailed) {
      await groups.deleteAddress(row.id);
      return ok(null);
    }
    const current = await groups.addressState(row.id);
    if (current === undefined) return ok(null);
    if (current !== GroupAddressState.Added && current !== GroupAddressState.DeleteFailed) throw new ApiError(ApiCode.BadRequest, 'cardGroup.addressBusy');
    const { effectiveAt } = await carrier.submitAddress({ groupId: group.id, address: row.address, op: 'remove' });
    await groups.markRemoving(row.id, effectiveAt);
    return ok(null);
  });
}
