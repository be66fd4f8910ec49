import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/devices.ts';
import type { Caller } from '../accounts/caller.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText } from '../http/validation.ts';
import type { DeviceFilter, DeviceRepository } from './repository.ts';

export interface DeviceRouteDeps {
  readonly devices: DeviceRepository;
  /**
   * Tells every process of the cluster that devices moved (the gateway's moveDevices): the one holding a
   * device closes its socket so that it reconnects and is admitted under its new organisation (until then
   * its link carries the old one), consoles of the old organisation lose their watches and flows of it,
   * and commands held for it under the old organisation are cancelled.
   */
  readonly devicesMoved?: (sns: readonly string[], orgId: number) => Promise<void>;
}

const filterOf = (caller: Caller, body: c.DeviceListFilter): DeviceFilter => ({ scope: caller.scope, ...body });

/**
 * Device list and the device edits of the list (devices-and-commerce section 6: view, remark, allocate,
 * set country). Paths are not shown by the spec; they follow /org/* (docs/DECISIONS.md).
 */
export async function deviceRoutes(app: FastifyInstance, deps: DeviceRouteDeps): Promise<void> {
  const { devices } = deps;
  // Request types come from the contract's schemas (protocol/api/devices.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/device/list', { config: { permission: 'device_list' }, schema: { body: c.DeviceListBody } }, async (req) => {
    const { pageNum = 1, pageSize = 10, sortField, sortOrder, ...filter } = req.body ?? {};
    return ok(await devices.list({ ...filterOf(callerOf(req), filter), pageNum, pageSize, sortField, sortOrder }));
  });

  // Control by query (control type true): the console resolves the query to serials here, then commands
  // each device through its socket, where every command is checked again.
  api.post('/device/select', { config: { permission: 'remote_list' }, schema: { body: c.DeviceSelectBody } }, async (req) => {
    return ok(await devices.select(filterOf(callerOf(req), req.body ?? {}), c.MAX_SNS));
  });

  /** The serials all in the caller's scope, or a refusal that does not say which one is outside it. */
  const ownDevices = async (caller: Caller, sns: readonly string[]) => {
    const found = await devices.inScope(sns, caller.scope);
    if (found.length !== sns.length) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    return found;
  };

  api.post('/device/remark', { config: { permission: 'device_remark' }, schema: { body: c.DeviceRemarkBody } }, async (req) => {
    const remark = cleanText(req.body.remark, 'field.remark', false);
    await ownDevices(callerOf(req), req.body.sns);
    return ok({ updated: await devices.update(req.body.sns, { remark }) });
  });

  api.post('/device/allocate', { config: { permission: 'device_allocate' }, schema: { body: c.DeviceAllocateBody } }, async (req) => {
    const caller = callerOf(req);
    if (!caller.scope.has(req.body.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    const found = await ownDevices(caller, req.body.sns);
    const moving = found.filter((d) => d.orgId !== req.body.orgId).map((d) => d.sn);
    const updated = await devices.update(moving, { org_id: req.body.orgId });
    await deps.devicesMoved?.(moving, req.body.orgId);
    return ok({ updated });
  });

  api.post('/device/country', { config: { permission: 'device_country' }, schema: { body: c.DeviceCountryBody } }, async (req) => {
    await ownDevices(callerOf(req), req.body.sns);
    return ok({ updated: await devices.update(req.body.sns, { country: req.body.country }) });
  });
}
