import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/device-ops.ts';
import { type Clock, Command, decodeFailure, type Envelope, Result } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, Message, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { commandPermissions } from './command-permissions.ts';
import type { DeviceOperationRow } from './device-operation-tables.ts';
import type { Gateway } from './gateway.ts';
import { PersistentCommands } from './persistent-commands.ts';
import { DeviceRepository } from '../devices/repository.ts';
import { emitWebhook } from '../webhooks/emit.ts';
import type { TimelineSource } from '../../protocol/api/timeline.ts';
import { replyMessage } from '../timeline/summary.ts';
import { bulkTargets } from '../groups/bulk-targets.ts';
import { type ApprovalService, waitingReply } from '../approvals/service.ts';
import type { ApprovalRow } from '../approvals/tables.ts';

/** The timeline's route of a REST caller: an API client (token) or the console's own call. */
const sourceOf = (caller: Caller): TimelineSource => (caller.session.apiToken ? 'api' : 'rest');

/** How long a whitelist cancellation waits for devices of the tree that are offline. */
const WHITELIST_CANCEL_TTL_MS = 7 * 86_400_000;
/** Devices commanded at once by a tree-wide action, so one call cannot flood the gateway. */
const FAN_OUT = 50;

// Commands that open a flow (shell, transfers) need a console socket on the other end; they cannot be
// held for later nor answered over HTTP.
const FLOW_COMMANDS: ReadonlySet<number> = new Set([Command.Shell, Command.FileUpload, Command.FileDownload, Command.Screenshot, Command.GrabLog]);

/**
 * The gateway's spacing of dangerous commands refused this one (the same command to the same device
 * within a second, by anyone, by any route): answered as every other limit is, 'You click too frequently！'.
 */
function refuseTooFrequent(reply: Envelope): void {
  if (reply.result === Result.Fail && decodeFailure(reply.data).message === Message.TooFrequent) {
    throw new ApiError(ApiCode.TooFrequent, 'common.tooFrequent');
  }
}

/** A held command as the console sees it. */
function heldView(row: DeviceOperationRow): c.PendingCommand {
  return {
    id: row.id,
    sn: row.sn,
    msgId: row.msg_id,
    state: row.state,
    result: row.result,
    reply: row.reply === null ? null : (JSON.parse(row.reply) as unknown),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
  };
}

export interface DeviceOpsRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly gateway: Gateway;
  readonly log: { warn(obj: object, msg: string): void };
  /** Four-eyes approval (issue 23): wipes, and bulk commands over the organisation's threshold, wait for it. */
  readonly approvals?: ApprovalService;
}

/** A request's stored command: its data and, for a held command, how long to hold it. */
const commandOf = (row: ApprovalRow): { data: unknown; ttlSeconds?: number } => JSON.parse(row.params) as { data: unknown; ttlSeconds?: number };
const targetsOf = (row: ApprovalRow): string[] => JSON.parse(row.targets) as string[];

/**
 * Device commands over HTTP for callers without a console socket, and persistent commands: with
 * `ttlSeconds`, a command to an offline device waits for it instead of answering result 5 (issue 5).
 */
export async function deviceOpsRoutes(app: FastifyInstance, deps: DeviceOpsRouteDeps): Promise<void> {
  const held = new PersistentCommands(deps.db, deps.gateway, deps.clock, deps.log);
  const devices = new DeviceRepository(deps.db);
  // Consoles watching the device's organisation hear how each held command ended.
  held.onFinished((row) => deps.gateway.toConsoles(row.org_id, { msgId: Command.HeldCommandDone, sn: row.sn, data: heldView(row) }));
  // The expiry sweep's timer and bus subscription end with the server, before the database closes.
  app.addHook('onClose', async () => held.stop());
  // Requests typed from the contract's schemas (protocol/api/device-ops.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // Approved requests run here as their requester, by the route they came by (socket or REST: one device;
  // bulk: each device), so their outcomes reach the timeline, watchers and webhooks as any command's do.
  const runOne = async (sn: string, msgId: number, data: unknown, by: string, source: TimelineSource) => {
    const reply = await deps.gateway.command(sn, msgId, data, { by, source });
    const orgId = await devices.orgOf(sn);
    if (orgId !== undefined) emitWebhook(deps.db, orgId, 'command.result', { sn, msgId, result: reply.result ?? null, by });
    return { sn, result: reply.result ?? null, message: replyMessage(reply.data) };
  };
  deps.approvals?.onExecute('command', async (row) => {
    const { data, ttlSeconds } = commandOf(row);
    const [sn = ''] = targetsOf(row);
    const source = row.source as TimelineSource;
    if (ttlSeconds === undefined) return { list: [await runOne(sn, row.msg_id, data, row.requester, source)] };
    const orgId = await devices.orgOf(sn);
    if (orgId === undefined) throw new Error(`approved command to an unknown device ${sn}`);
    const outcome = await held.submit({ sn, orgId, msgId: row.msg_id, data, ttlMs: ttlSeconds * 1000, accountId: row.requester_id, by: row.requester, source });
    return outcome.delivered ? { list: [{ sn, result: outcome.reply.result ?? null, message: replyMessage(outcome.reply.data) }] } : { held: heldView(outcome.held) };
  });
  deps.approvals?.onExecute('bulk', async (row) => {
    const { data } = commandOf(row);
    const sns = targetsOf(row);
    const list: { sn: string; result: number | null; message: string }[] = [];
    for (let i = 0; i < sns.length; i += FAN_OUT) list.push(...(await Promise.all(sns.slice(i, i + FAN_OUT).map((sn) => runOne(sn, row.msg_id, data, row.requester, 'bulk')))));
    return { list };
  });

  // The device's organisation when the caller may reach it; the same refusal for unknown devices.
  const deviceInScope = async (caller: Caller, sn: string) => {
    const row = await devices.placeOf(sn);
    if (!row || !caller.scope.has(row.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    return row;
  };

  // Every serial in the caller's scope, in the order asked, or one refusal that does not say which is not.
  const devicesInScope = async (caller: Caller, sns: readonly string[]) => {
    const rows = await devices.orgsOf(sns);
    const bySn = new Map(rows.map((r) => [r.sn, r]));
    return sns.map((sn) => {
      const row = bySn.get(sn);
      if (!row || !caller.scope.has(row.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      return row;
    });
  };

  api.post(
    '/device-ops/command',
    { config: { permission: 'device_list' }, schema: { body: c.DeviceCommandBody } },
    async (req) => {
      const caller = callerOf(req);
      // The account's command budget is spent before any other work, as a console session's is.
      if (!deps.gateway.accountBudgets.take(caller.accountId, deps.clock.now())) throw new ApiError(ApiCode.TooFrequent, 'common.tooFrequent');
      const { sn, msgId, data, ttlSeconds } = req.body;
      const permission = commandPermissions.get(msgId);
      if (permission === undefined || FLOW_COMMANDS.has(msgId)) throw new ApiError(ApiCode.BadRequest, 'device.commandNotOverHttp');
      if (!caller.permissions.has(permission)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      const device = await deviceInScope(caller, sn);
      if (deps.approvals && (await deps.approvals.commandNeedsApproval(caller.orgId, msgId, 1, false))) {
        const params = { data: data ?? {}, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) };
        const approval = await deps.approvals.request(caller, { kind: 'command', msgId, params, targets: [{ sn, orgId: device.org_id }], source: sourceOf(caller) });
        return ok({ delivered: false, result: Result.AwaitingApproval, data: waitingReply(approval), approval } satisfies c.DeviceCommandReply);
      }
      if (ttlSeconds === undefined) {
        const reply: Envelope = await deps.gateway.command(sn, msgId, data ?? {}, { by: caller.account, source: sourceOf(caller) });
        emitWebhook(deps.db, device.org_id, 'command.result', { sn, msgId, result: reply.result ?? null, by: caller.account });
        refuseTooFrequent(reply);
        return ok({ delivered: reply.result !== Result.DeviceOffline, result: reply.result ?? null, data: reply.data ?? null });
      }
      const outcome = await held.submit({ sn, orgId: device.org_id, msgId, data: data ?? {}, ttlMs: ttlSeconds * 1000, accountId: caller.accountId, by: caller.account, source: sourceOf(caller) });
      if (outcome.delivered) {
        refuseTooFrequent(outcome.reply);
        return ok({ delivered: true, result: outcome.reply.result ?? null, data: outcome.reply.data ?? null });
      }
      return ok({ delivered: false, result: null, pending: heldView(outcome.held) });
    },
  );

  // One command to many devices (by selection): each device is commanded as /device-ops/command would,
  // and each is one entry of its own timeline (source 'bulk'), not one entry for the request.
  api.post(
    '/device-ops/bulk',
    { config: { permission: 'device_list' }, schema: { body: c.DeviceBulkCommandBody } },
    async (req) => {
      const caller = callerOf(req);
      // One request costs one command of the account's budget; the devices are capped by the schema.
      if (!deps.gateway.accountBudgets.take(caller.accountId, deps.clock.now())) throw new ApiError(ApiCode.TooFrequent, 'common.tooFrequent');
      const { msgId, data } = req.body;
      const permission = commandPermissions.get(msgId);
      if (permission === undefined || FLOW_COMMANDS.has(msgId)) throw new ApiError(ApiCode.BadRequest, 'device.commandNotOverHttp');
      if (!caller.permissions.has(permission)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      // The serials asked, or a dynamic group's members now (within the caller's organisations).
      const sns = await bulkTargets(deps.db, caller, req.body);
      const devices = await devicesInScope(caller, sns);
      if (deps.approvals && (await deps.approvals.commandNeedsApproval(caller.orgId, msgId, devices.length, true))) {
        const approval = await deps.approvals.request(caller, { kind: 'bulk', msgId, params: { data: data ?? {} }, targets: devices.map((d) => ({ sn: d.sn, orgId: d.org_id })), source: 'bulk' });
        return ok({ list: [], approval } satisfies c.DeviceBulkCommandReply);
      }
      const list: { sn: string; result: number | null; message: string }[] = [];
      for (let i = 0; i < devices.length; i += FAN_OUT) {
        const replies = await Promise.all(
          devices.slice(i, i + FAN_OUT).map(async (d) => {
            const reply = await deps.gateway.command(d.sn, msgId, data ?? {}, { by: caller.account, source: 'bulk' });
            emitWebhook(deps.db, d.org_id, 'command.result', { sn: d.sn, msgId, result: reply.result ?? null, by: caller.account });
            return { sn: d.sn, result: reply.result ?? null, message: replyMessage(reply.data) };
          }),
        );
        list.push(...replies);
      }
      return ok({ list } satisfies c.DeviceBulkCommandReply);
    },
  );

  // Revoking a device's secret disconnects it everywhere; it may return only by enrolling again with its
  // organisation's key (a stolen or retired terminal keeps nothing that lets it back in).
  api.post(
    '/device-ops/revoke',
    { config: { permission: 'device_revoke' }, schema: { body: c.DeviceSnInput } },
    async (req) => {
      await deviceInScope(callerOf(req), req.body.sn);
      await deps.gateway.revokeDevice(req.body.sn);
      return ok(null);
    },
  );

  api.get('/device-ops/pending', { config: { permission: 'device_list' }, schema: { querystring: c.DeviceSnInput } }, async (req) => {
    const caller = callerOf(req);
    await deviceInScope(caller, req.query.sn);
    // Commands of the caller's organisations only: those another organisation held for the device (before
    // it moved) stay that organisation's.
    return ok({ list: (await held.list(req.query.sn, 100, caller.scopeCoversAll ? undefined : caller.scope)).map(heldView) });
  });

  api.post(
    '/device-ops/whitelist-cancel',
    { config: { permission: 'device_whitelist' }, schema: { body: c.WhitelistCancelBody } },
    async (req) => {
      const caller = callerOf(req);
      // Cancellation reaches every Android device of the caller's organisation tree (devices-and-commerce
      // section 5); Linux devices have no whitelist. Offline devices get it when they return.
      const android = await devices.android(caller.scopeCoversAll ? undefined : caller.scope);
      let delivered = 0;
      let waiting = 0;
      for (let i = 0; i < android.length; i += FAN_OUT) {
        const outcomes = await Promise.all(
          android.slice(i, i + FAN_OUT).map((d) =>
            held.submit({ sn: d.sn, orgId: d.org_id, msgId: Command.Whitelist, data: { action: 'cancel', packages: req.body.packages ?? [] }, ttlMs: WHITELIST_CANCEL_TTL_MS, accountId: caller.accountId }),
          ),
        );
        for (const o of outcomes) {
          if (o.delivered) delivered++;
          else waiting++;
        }
      }
      return ok({ devices: android.length, delivered, held: waiting });
    },
  );
}
