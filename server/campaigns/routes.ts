import { timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdPath } from '../../protocol/api/common.ts';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/campaigns.ts';
import type { PushSkipReason, PushStartReply } from '../../protocol/api/campaigns.ts';
import { type Clock, Command, englishOf, FirmwareType, msg, nextOpening, type PlainMessageKey, windowProblem } from '../../protocol/index.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import { itemInScope } from '../content/items.ts';
import type { Db } from '../db/database.ts';
import { DeviceRepository } from '../devices/repository.ts';
import { GroupRepository } from '../groups/repository.ts';
import { deviceSecretDigest } from '../gateway/device-endpoint.ts';
import { ApiCode, ApiError, failure, ok } from '../http/envelope.ts';
import { requestLanguage } from '../http/language.ts';
import { callerOf } from '../http/guard.ts';
import { pageWindow } from '../http/paging.ts';
import { idOf } from '../http/validation.ts';
import { couponInfo } from './coupons.ts';
import { registerCouponRoutes } from './coupon-routes.ts';
import { PUSH_LOG_PERMISSION, registerPushLogStream } from './log-stream.ts';
import { CampaignState } from './runner.ts';
import { CampaignRepository } from './repository.ts';
import { campaignInScope, pushKeyOf } from './campaign-access.ts';
import { campaignView } from './campaign-view.ts';

export interface CampaignRouteOptions {
  readonly db: Db;
  readonly clock: Clock;
}


export const PushMessage = englishOf({
  NoDevice: 'push.noDevice',
  SnsOrQuery: 'push.snsOrQuery',
  OneTarget: 'push.oneTarget',
  SystemType: 'push.systemType',
  Apollo: 'push.apollo',
  LogQuery: 'push.logQuery',
  Gone: 'push.gone',
  NotRunning: 'push.notRunning',
  NotPaused: 'push.notPaused',
  TooManyDevices: 'push.tooManyDevices',
  SelfApproval: 'push.selfApproval',
  NotAwaiting: 'push.notAwaiting',
});

/** Most devices one campaign takes (ours; protocol/api/campaigns.ts). */
export const MAX_CAMPAIGN_DEVICES = c.MAX_CAMPAIGN_DEVICES;
/** Default wait for offline devices, and most retries after a failed download or install (ours). */
export const DEFAULT_OFFLINE_WINDOW_MS = 7 * 24 * 3_600_000;
export const DEFAULT_MAX_RETRIES = 3;

/**
 * Push campaigns, push logs, push coupons, and the device-side download of pushed files. A route plugin:
 * the runner, the file store, live callers and approvals are infrastructure the app is decorated with
 * (campaigns/plugin.ts, uploads/plugin.ts, accounts/live-callers-plugin.ts, approvals/plugin.ts).
 */
export async function campaignRoutes(app: FastifyInstance, opts: CampaignRouteOptions): Promise<void> {
  const { db, clock } = opts;
  const { campaignRunner: runner, uploads, approvals } = app;

  // Requests typed from the contract's schemas (protocol/api/campaigns.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const deviceRepository = new DeviceRepository(db);
  const groups = new GroupRepository(db);
  const campaigns = new CampaignRepository(db);

  /** Cancels a campaign and its queued targets (the operator's cancel, a rejected or expired approval). */
  const cancelCampaign = async (c: { id: number; org_id: number }, now: number) => {
    await campaigns.cancel(c.id, now);
    runner.announceCampaign({ id: c.id, orgId: c.org_id, state: CampaignState.Cancelled });
  };

  // An approved four-eyes request starts its campaign (as /push/approve does); a rejected or expired one cancels it.
  approvals.onExecute('campaign', async (row) => {
    const id = row.campaign_id ?? 0;
    if (!(await campaigns.transition(id, CampaignState.AwaitingApproval, CampaignState.Running, clock.now(), { approved_by: row.decided_by_id }))) return { campaignId: id, state: 'not-awaiting' };
    runner.announceCampaign({ id, orgId: row.org_id, state: CampaignState.Running });
    runner.poke();
    return { campaignId: id, state: CampaignState.Running };
  });
  approvals.onEnded('campaign', async (row) => {
    const c = await campaigns.find(row.campaign_id ?? 0);
    if (c?.state === CampaignState.AwaitingApproval) await cancelCampaign(c, clock.now());
  });

  api.post('/push/start', { config: { permission: 'session' }, schema: { body: c.PushStartBody } }, async (req) => {
    const caller = callerOf(req);
    const body = req.body;
    if (!caller.permissions.has(pushKeyOf(body.kind))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    const item = await itemInScope(db, caller, body.kind, body.contentId);
    if (item.item_type === 'folder') throw new ApiError(ApiCode.BadRequest, 'content.folderDownload');
    const query = body.query ?? (body.byQuery ? {} : undefined);
    if (query && body.sns) throw new ApiError(ApiCode.BadRequest, 'push.snsOrQuery');
    if (body.deviceGroupId !== undefined && (query || body.sns)) throw new ApiError(ApiCode.BadRequest, 'push.oneTarget');
    let chosen: readonly string[];
    if (body.deviceGroupId !== undefined) {
      // A dynamic group's members now, within the caller's organisations; later joiners are the runner's (server/groups/joiners.ts).
      const found = await groups.memberSns(await groups.inScope(body.deviceGroupId, caller.scope), caller.scope, MAX_CAMPAIGN_DEVICES + 1);
      if (found.total > MAX_CAMPAIGN_DEVICES) throw new ApiError(ApiCode.BadRequest, 'push.tooManyDevices');
      if (found.sns.length === 0) throw new ApiError(ApiCode.BadRequest, 'push.noDevice');
      chosen = found.sns;
    } else if (query) {
      // Resolved here with the device list's own filter (scope included), so the devices pushed are exactly
      // those remote management shows for the query; the serials are read again below with the scope.
      const found = await deviceRepository.select({ ...query, scope: caller.scope }, MAX_CAMPAIGN_DEVICES + 1);
      if (found.total > MAX_CAMPAIGN_DEVICES) throw new ApiError(ApiCode.BadRequest, 'push.tooManyDevices');
      if (found.sns.length === 0) throw new ApiError(ApiCode.BadRequest, 'push.noDevice');
      chosen = found.sns;
    } else {
      chosen = [...new Set(body.sns ?? [])];
      if (chosen.length === 0) throw new ApiError(ApiCode.BadRequest, 'push.noDevice');
    }
    let devices = await campaigns.devicesIn(caller.scope, chosen, MAX_CAMPAIGN_DEVICES + 1);
    // Stages follow the order the devices were chosen in (a query's order is the devices' age).
    if (!query && body.sns) {
      const rank = new Map((body.sns ?? []).map((sn, i) => [sn, i]));
      devices.sort((a, b) => (rank.get(a.sn) ?? 0) - (rank.get(b.sn) ?? 0));
    }
    if (devices.length === 0) throw new ApiError(ApiCode.BadRequest, 'push.noDevice');
    if (devices.length > MAX_CAMPAIGN_DEVICES) throw new ApiError(ApiCode.BadRequest, 'push.tooManyDevices');
    // Checks before start (devices-and-commerce section 5).
    const systemType = item.system_type;
    if (body.skipMismatched !== undefined) {
      // The picker's report: which devices the content cannot go to and why; confirmed, the rest are pushed.
      const reasonOf = (d: { model: string; system_type: string }): PushSkipReason | undefined =>
        systemType && d.system_type !== systemType
          ? 'systemType'
          : item.kind === 'firmware' && item.item_type === FirmwareType.Mcu && /apollo/i.test(d.model)
            ? 'apollo'
            : item.kind === 'firmware' && item.model && d.model !== item.model
              ? 'model'
              : undefined;
      const skipped = devices.flatMap((d) => {
        const reason = reasonOf(d);
        return reason ? [{ sn: d.sn, model: d.model, systemType: d.system_type, reason }] : [];
      });
      if (skipped.length > 0) {
        if (!body.skipMismatched) return ok<PushStartReply>({ confirm: 'skip', skipped: skipped.slice(0, 100), skippedCount: skipped.length, pushable: devices.length - skipped.length });
        const out = new Set(skipped.map((d) => d.sn));
        devices = devices.filter((d) => !out.has(d.sn));
        if (devices.length === 0) throw new ApiError(ApiCode.BadRequest, 'push.noDevice');
      }
    }
    if (systemType && devices.some((d) => d.system_type !== systemType)) {
      throw new ApiError(ApiCode.BadRequest, systemType === 'android' ? 'push.systemTypeLinux' : 'push.systemType');
    }
    if (item.kind === 'firmware') {
      if (item.item_type === FirmwareType.Mcu && devices.some((d) => /apollo/i.test(d.model))) throw new ApiError(ApiCode.BadRequest, 'push.apollo');
      const mismatched = devices.filter((d) => item.model && d.model !== item.model).map((d) => d.sn);
      if (mismatched.length > 0 && !body.confirmModelMismatch) return ok<PushStartReply>({ confirm: 'model', mismatched: mismatched.slice(0, 100), mismatchCount: mismatched.length });
      // The starter's organisation pays, whoever owns the firmware (see org_id below).
      const coupons = await couponInfo(db, caller.orgId);
      if (coupons.balance < devices.length) throw new ApiError(ApiCode.BadRequest, msg('coupon.notEnoughFor', { balance: coupons.balance, needed: devices.length }));
    }
    if (body.window) {
      const problem = windowProblem(body.window);
      if (problem) throw new ApiError(ApiCode.BadRequest, problem);
      if (nextOpening(body.window, clock.now()) === undefined) throw new ApiError(ApiCode.BadRequest, 'push.windowNeverOpens');
    }
    const now = clock.now();
    // Over the organisation's size for four-eyes approval: it waits for a second account (issue 23).
    const fourEyes = (await approvals.campaignNeedsApproval(caller.orgId, devices.length));
    const campaign = await campaigns.create(
      {
        // A campaign belongs to, and is billed to, the organisation of the account that starts it: the
        // content's owner may be a child organisation, which must neither pay for nor see this push.
        org_id: caller.orgId,
        account_id: caller.accountId,
        content_id: item.id,
        kind: item.kind,
        content_name: item.name,
        state: body.requireApproval || fourEyes ? CampaignState.AwaitingApproval : CampaignState.Running,
        total: devices.length,
        stage_size: body.stageSize ?? 0,
        success_percent: body.successPercent ?? 100,
        error_percent: body.errorPercent ?? 100,
        max_retries: body.maxRetries ?? DEFAULT_MAX_RETRIES,
        offline_window_ms: body.offlineWindowMinutes ? body.offlineWindowMinutes * 60_000 : DEFAULT_OFFLINE_WINDOW_MS,
        start_at: body.startAt !== undefined && body.startAt > now ? body.startAt : null,
        window_json: body.window ? JSON.stringify(body.window) : '',
        group_id: body.deviceGroupId ?? null,
        created_at: now,
        updated_at: now,
      },
      devices,
      body.stageSize ?? 0,
      now,
    );
    // Announced at once, so consoles following the push log see the new push before its first device reports.
    runner.announceCampaign({ id: campaign.id, orgId: campaign.org_id, state: campaign.state });
    runner.poke();
    const approval = fourEyes
      ? await approvals.request(caller, {
          kind: 'campaign',
          msgId: Command.PushFile,
          params: { kind: item.kind, contentId: item.id, contentName: item.name },
          targets: devices.map((d) => ({ sn: d.sn, orgId: d.org_id })),
          source: 'campaign',
          campaignId: campaign.id,
        })
      : undefined;
    return ok<PushStartReply>({ campaign: await campaignView(campaigns, campaign, now), sns: devices.map((d) => d.sn), ...(approval ? { approval } : {}) });
  });

  const control = (path: string, from: string, to: string, refusal: PlainMessageKey) =>
    api.post(path, { config: { permission: 'session' }, schema: { body: c.CampaignIdBody } }, async (req) => {
      const caller = callerOf(req);
      const c = await campaignInScope(campaigns, caller, req.body.id);
      if (!caller.permissions.has(pushKeyOf(c.kind))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      const now = clock.now();
      // Resuming after an emergency stop is the operator's override: the stopped stage is left as it is and the next one opens.
      const override = to === CampaignState.Running && c.message ? { current_stage: c.current_stage + 1, message: '' } : {};
      if (!(await campaigns.transition(c.id, from, to, now, override))) throw new ApiError(ApiCode.BadRequest, refusal);
      if (to === CampaignState.Cancelled) await campaigns.cancelQueued(c.id, now);
      runner.announceCampaign({ id: c.id, orgId: c.org_id, state: to });
      runner.poke();
      return ok(await campaignView(campaigns, { ...c, state: to }, clock.now()));
    });
  control('/push/pause', CampaignState.Running, CampaignState.Paused, 'push.notRunning');
  control('/push/resume', CampaignState.Paused, CampaignState.Running, 'push.notPaused');
  api.post('/push/cancel', { config: { permission: 'session' }, schema: { body: c.CampaignIdBody } }, async (req) => {
    const caller = callerOf(req);
    const c = await campaignInScope(campaigns, caller, req.body.id);
    if (!caller.permissions.has(pushKeyOf(c.kind))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    if (c.state !== CampaignState.Running && c.state !== CampaignState.Paused && c.state !== CampaignState.AwaitingApproval) throw new ApiError(ApiCode.BadRequest, 'push.notRunning');
    await cancelCampaign(c, clock.now());
    return ok(await campaignView(campaigns, { ...c, state: CampaignState.Cancelled }, clock.now()));
  });

  // Approval before start: a second pair of eyes, so the creator cannot approve their own campaign.
  api.post('/push/approve', { config: { permission: 'session' }, schema: { body: c.CampaignIdBody } }, async (req) => {
    const caller = callerOf(req);
    const c = await campaignInScope(campaigns, caller, req.body.id);
    if (!caller.permissions.has(pushKeyOf(c.kind))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    if (c.account_id === caller.accountId) throw new ApiError(ApiCode.BadRequest, 'push.selfApproval');
    // A campaign held by the organisation's four-eyes policy is decided as an approval request (its key and scope rules).
    if (await approvals.repo.pendingOfCampaign(c.id)) throw new ApiError(ApiCode.BadRequest, 'approval.useApprovals');
    if (!(await campaigns.transition(c.id, CampaignState.AwaitingApproval, CampaignState.Running, clock.now(), { approved_by: caller.accountId }))) throw new ApiError(ApiCode.BadRequest, 'push.notAwaiting');
    runner.announceCampaign({ id: c.id, orgId: c.org_id, state: CampaignState.Running });
    runner.poke();
    return ok(await campaignView(campaigns, { ...c, state: CampaignState.Running, approved_by: caller.accountId }, clock.now()));
  });

  // Devices that join the selection while a campaign runs are added to its last stage.
  api.post(
    '/push/add-devices',
    { config: { permission: 'session' }, schema: { body: c.AddDevicesBody } },
    async (req) => {
      const caller = callerOf(req);
      const c = await campaignInScope(campaigns, caller, req.body.id);
      if (!caller.permissions.has(pushKeyOf(c.kind))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      if (c.state === CampaignState.Cancelled || c.state === CampaignState.Finished) throw new ApiError(ApiCode.BadRequest, 'push.notRunning');
      const item = await itemInScope(db, caller, c.kind, c.content_id);
      const known = await campaigns.knownTargets(c.id, req.body.sns);
      // Only devices of the campaign's own organisation (and below): that organisation pays for them and sees
      // them in its push log, so a parent adding to a child's campaign cannot bring in its own devices.
      const campaignScope = (await currentOrgTree(db)).scopeOf(c.org_id);
      const fresh = await campaigns.devicesOf(campaignScope, [...new Set(req.body.sns)].filter((sn) => !known.has(sn)));
      if (item.system_type && fresh.some((d) => d.system_type !== item.system_type)) throw new ApiError(ApiCode.BadRequest, 'push.systemType');
      // Four-eyes (issue 23): a push may not grow past its organisation's campaign size by additions, which
      // would run devices nobody approved. Refused, not held: the devices go in a new push, which waits.
      const limit = fresh.length > 0 ? (await approvals.policy(c.org_id)).campaignOver : 0;
      const total = Number(c.total) + fresh.length;
      const overSize = () => new ApiError(ApiCode.BadRequest, msg('push.addOverApproval', { total, limit }));
      if (limit > 0 && total > limit) throw overSize();
      if (c.kind === 'firmware' && fresh.length > 0) {
        const open = await campaigns.openTargets(c.id);
        const coupons = await couponInfo(db, c.org_id);
        if (coupons.balance < fresh.length + open) throw new ApiError(ApiCode.BadRequest, 'coupon.notEnough');
      }
      // Checked again as the total grows: another addition may have come in since the campaign was read.
      if (!(await campaigns.addTargets(c.id, fresh.map((d) => d.sn), clock.now(), limit > 0 ? limit : undefined))) throw overSize();
      runner.poke();
      return ok({ added: fresh.length });
    },
  );

  api.get('/push/campaign/:id', { config: { permission: PUSH_LOG_PERMISSION }, schema: { params: IdPath } }, async (req) => {
    const c = await campaignInScope(campaigns, callerOf(req), idOf(req.params.id));
    return ok(await campaignView(campaigns, c, clock.now()));
  });

  api.post(
    '/push/campaign/list',
    { config: { permission: PUSH_LOG_PERMISSION }, schema: { body: c.PagingBody } },
    async (req) => {
      const { limit, offset } = pageWindow(req.body);
      const { total, rows } = await campaigns.list(callerOf(req).scope, limit, offset);
      return ok({ total, list: await Promise.all(rows.map((r) => campaignView(campaigns, r, clock.now()))) });
    },
  );

  api.post(
    '/push-log/list',
    {
      config: { permission: PUSH_LOG_PERMISSION },
      schema: { body: c.PushLogListBody },
    },
    async (req) => {
      const { operationType, campaignId } = req.body;
      const sn = req.body.sn?.trim();
      if (!operationType && !sn && !campaignId) throw new ApiError(ApiCode.BadRequest, 'push.logQuery');
      const { limit, offset } = pageWindow(req.body);
      const { total, rows } = await campaigns.pushLog({ scope: callerOf(req).scope, kind: operationType, sn, campaignId, limit, offset });
      return ok({
        total,
        list: rows.map((r) => ({
          id: r.id,
          campaignId: r.campaign_id,
          orgId: r.org_id,
          sn: r.sn,
          operationType: r.kind,
          contentName: r.content_name,
          pushDate: Number(r.created_at),
          messageType: 'file',
          pushResult: r.push_result,
          downloadState: r.download_state,
          progress: r.progress,
          installResult: r.install_result,
          attempts: r.attempts,
          message: r.message,
          updateTime: Number(r.updated_at),
        })),
      });
    },
  );

  registerPushLogStream(app, { runner, live: app.liveCallers });

  registerCouponRoutes(app, { db, clock });

  // ---- device download ----------------------------------------------------------------------------------
  // A device fetches a pushed file with its own credentials, and only a file it has an open push for.
  api.get(
    '/content/blob/:sha256',
    { config: { public: true }, schema: { hide: true, params: c.BlobPath } },
    async (req, reply) => {
      const sn = String(req.headers['x-device-sn'] ?? '');
      const secret = String(req.headers['x-device-secret'] ?? '');
      const device = sn ? await campaigns.deviceSecret(sn) : undefined;
      const a = Buffer.from(deviceSecretDigest(secret));
      const b = Buffer.from(device?.secret_hash ?? '');
      if (!device || !secret || a.length !== b.length || !timingSafeEqual(a, b)) return reply.status(401).send(failure(ApiCode.LoginExpired, msg('common.permissionDenied'), requestLanguage(req)));
      const open = await campaigns.hasOpenPush(sn, req.params.sha256);
      if (!open) return reply.status(403).send(failure(ApiCode.Forbidden, msg('common.permissionDenied'), requestLanguage(req)));
      const file = uploads.blobPath(req.params.sha256);
      if (!fs.existsSync(file)) return reply.status(404).send(failure(ApiCode.NotFound, msg('push.gone'), requestLanguage(req)));
      const size = fs.statSync(file).size;
      return reply.header('Content-Type', 'application/octet-stream').header('Content-Length', String(size)).send(fs.createReadStream(file));
    },
  );
}
