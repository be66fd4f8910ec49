import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/device-ops.ts';
import { type Clock, Command, commandPermission, decodeReply, parseRemoteControl, Result } from '../../protocol/index.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { ApiCode, ApiError, Message, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { replyMessage } from '../timeline/summary.ts';
import type { Gateway } from './gateway.ts';

export interface GroupControlRouteDeps {
  readonly clock: Clock;
  readonly gateway: Gateway;
  readonly devices: DeviceRepository;
}

/** The pixel point a device reports for a pointer input (RemoteControlReply.at), when it reports one. */
function pointOf(data: unknown): c.GroupControlOutcome['at'] {
  const at = decodeReply(Command.RemoteControl, data)?.data.at;
  return at && Number.isFinite(at.x) && Number.isFinite(at.y) ? { x: at.x, y: at.y } : null;
}

/**
 * Group control from the monitor centre's wall (issue 22): one live-control input mirrored to every device
 * of the group, at once. Each device is checked on its own: the live-control key and the device in the
 * caller's organisation scope; a device that fails either is refused alone (result 1, permission denied)
 * and the others proceed. Each device commanded is one entry of its timeline (source 'group').
 */
export async function groupControlRoutes(app: FastifyInstance, deps: GroupControlRouteDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  // The live-control key, from the catalogue's one command -> key map.
  const permission = commandPermission(Command.RemoteControl);

  api.post('/device-ops/group-control', { config: { permission: 'device_list' }, schema: { body: c.GroupControlBody } }, async (req) => {
    const caller = callerOf(req);
    // One input costs one command of the account's budget, whatever the group's size (capped by the schema).
    if (!deps.gateway.accountBudgets.take(caller.accountId, deps.clock.now())) throw new ApiError(ApiCode.TooFrequent, 'common.tooFrequent');
    const input = parseRemoteControl(req.body.input);
    if (!input || !c.GROUP_CONTROL_ACTIONS.includes(input.action)) throw new ApiError(ApiCode.BadRequest, 'common.invalidRequest');
    const { sns } = req.body;
    // Without the key no device is read: each is refused as it would be alone.
    const reachable = permission !== undefined && caller.permissions.has(permission) ? new Set((await deps.devices.inScope(sns, caller.scope)).map((d) => d.sn)) : new Set<string>();
    const list = await Promise.all(
      sns.map(async (sn): Promise<c.GroupControlOutcome> => {
        if (!reachable.has(sn)) return { sn, result: Result.Fail, message: Message.PermissionDenied, at: null };
        const reply = await deps.gateway.command(sn, Command.RemoteControl, input, { by: caller.account, source: 'group' });
        return { sn, result: reply.result ?? null, message: replyMessage(reply.data), at: reply.result === Result.Success ? pointOf(reply.data) : null };
      }),
    );
    return ok({ list } satisfies c.GroupControlReply);
  });
}
