import { sql } from 'kysely';
import mitt from 'mitt';
import { type Clock, Command, DownloadState, type Envelope, InstallResult, OnlineState, PushResult, Result, type TimerHandle } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { DeviceOrigin } from '../gateway/device-endpoint.ts';
import { chargeMany, chargeOnce } from './coupons.ts';

/** A campaign's lifecycle (ours; the spec shows per-device states only). */
export const CampaignState = { AwaitingApproval: 'awaiting_approval', Running: 'running', Paused: 'paused', Cancelled: 'cancelled', Finished: 'finished' } as const;
/** Where the runner is with one device. */
export const Phase = { Queued: 'queued', Sent: 'sent', Done: 'done', Failed: 'failed', Cancelled: 'cancelled' } as const;

/** What PushFile (65551) carries to the device. */
export interface PushFilePayload {
  readonly campaignId: number;
  readonly kind: string;
  readonly url: string;
  readonly sha256: string;
  readonly size: number;
  readonly fileName: string;
  readonly version: string;
  readonly packageName: string;
  readonly autoInstall: boolean;
}

/** What a device reports with PushProgress (5). */
export interface PushProgressReport {
  readonly campaignId: number;
  readonly downloadState: number;
  readonly progress: number;
  readonly installResult?: number;
  readonly message?: string;
}

/** One device's row as consoles see it, live. */
export interface TargetUpdate {
  readonly campaignId: number;
  readonly orgId: number;
  readonly sn: string;
  readonly pushResult: number;
  readonly downloadState: number;
  readonly progress: number;
  readonly installResult: number;
  readonly message: string;
  readonly updateTime: number;
}

export interface RunnerOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly gateway: Gateway;
  /** Most PushFile commands awaiting the device's answer at once. */
  readonly concurrency?: number;
  readonly tickMs?: number;
  /** First retry delay; doubles each attempt. */
  readonly backoffMs?: number;
  /** A device that accepted and then went silent this long is sent the push again. */
  readonly staleMs?: number;
  readonly log: { warn(obj: object, msg: string): void };
}

const FINAL_FAILURES: ReadonlySet<number> = new Set([DownloadState.Failed, DownloadState.UpgradeFailed]);

/**
 * Runs push campaigns from the database: every decision is a row, so a restarted server picks up where
 * the last one stopped. Dispatches PushFile to online devices with bounded concurrency, waits for offline
 * ones up to the campaign's window, retries failures with backoff, charges one coupon per firmware push
 * exactly once, and streams every per-device change to consoles.
 */
export class CampaignRunner {
  readonly events = mitt<{ target: TargetUpdate; campaign: { id: number; orgId: number; state: string } }>();
  readonly #o: Required<Omit<RunnerOptions, 'log'>> & Pick<RunnerOptions, 'log'>;
  #timer: TimerHandle | undefined;
  #inflight = 0;
  #ticking = false;
  #again = false;
  #stopped = true;
  readonly #sending = new Set<number>();

  constructor(opts: RunnerOptions) {
    this.#o = { concurrency: 200, tickMs: 500, backoffMs: 2_000, staleMs: 10 * 60_000, ...opts };
  }

  start(): void {
    this.#stopped = false;
    this.#o.gateway.onDeviceMessage(Command.PushProgress, (from, env) => this.#onProgress(from, env));
    this.#schedule(0);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Runs a pass now (new campaign, resumed campaign) instead of at the next tick. */
  poke(): void {
    if (this.#ticking) this.#again = true;
    else this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#tick();
    }, ms);
  }

  async #tick(): Promise<void> {
    if (this.#ticking || this.#stopped) return;
    this.#ticking = true;
    try {
      await this.#expireAndRecover();
      await this.#dispatchDue();
      await this.#finishCampaigns();
    } catch (err) {
      if (!this.#stopped) this.#o.log.warn({ err }, 'push campaign pass failed');
    } finally {
      this.#ticking = false;
      const again = this.#again;
      this.#again = false;
      this.#schedule(again ? 0 : this.#o.tickMs);
    }
  }

  async #expireAndRecover(): Promise<void> {
    const { db, clock } = this.#o;
    const now = clock.now();
    // Devices that stayed offline past the campaign's window fail; nothing was charged for them.
    const expired = await db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .select(['t.id', 't.campaign_id', 't.sn', 'c.org_id'])
      .where('c.state', '=', CampaignState.Running)
      .where('t.phase', '=', Phase.Queued)
      .where(sql<number>`c.created_at + c.offline_window_ms`, '<', now)
      .limit(1000)
      .execute();
    for (const t of expired) await this.#settle(t.id, t.campaign_id, t.org_id, t.sn, Phase.Failed, { download_state: DownloadState.Failed, message: 'The equipment is offline' });
    // Accepted long ago and silent since: the device lost the job (or a report); send it again.
    await db
      .updateTable('push_targets')
      .set({ phase: Phase.Queued, next_attempt_at: now })
      .where('phase', '=', Phase.Sent)
      .where('updated_at', '<', now - this.#o.staleMs)
      .execute();
  }

  async #dispatchDue(): Promise<void> {
    const { db, clock } = this.#o;
    const room = this.#o.concurrency - this.#inflight;
    if (room <= 0) return;
    const due = await db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .innerJoin('devices as d', 'd.sn', 't.sn')
      .select(['t.id', 't.sn', 't.attempts', 't.campaign_id', 'c.org_id', 'c.kind', 'c.content_id', 'c.max_retries'])
      .where('c.state', '=', CampaignState.Running)
      .where('t.phase', '=', Phase.Queued)
      .where('t.next_attempt_at', '<=', clock.now())
      .whereRef('t.stage', '<=', 'c.current_stage')
      .where('d.online_state', '=', OnlineState.Online)
      .orderBy('t.id')
      .limit(room + this.#sending.size)
      .execute();
    const contents = new Map<number, PushFilePayload | undefined>();
    const batch: { t: (typeof due)[number]; payload: PushFilePayload }[] = [];
    for (const t of due) {
      if (this.#sending.has(t.id) || this.#inflight >= this.#o.concurrency) continue;
      if (!contents.has(t.campaign_id)) contents.set(t.campaign_id, await this.#payload(t.campaign_id, t.content_id, t.kind));
      const payload = contents.get(t.campaign_id);
      if (!payload) {
        await this.#settle(t.id, t.campaign_id, t.org_id, t.sn, Phase.Failed, { download_state: DownloadState.Failed, message: 'The content no longer exists' });
        continue;
      }
      this.#sending.add(t.id);
      this.#inflight++;
      batch.push({ t, payload });
    }
    const charged = await this.#chargeBatch(batch.map((b) => b.t).filter((t) => t.kind === 'firmware'));
    for (const { t, payload } of batch) {
      void this.#send(t, payload, charged).finally(() => {
        this.#sending.delete(t.id);
        this.#inflight--;
      });
    }
  }

  /**
   * Charges a pass's firmware pushes per campaign in one transaction each (see chargeMany). Undefined when
   * a batch failed (a concurrent charge won a unique key): each push then charges itself with chargeOnce.
   */
  async #chargeBatch(targets: readonly { sn: string; campaign_id: number; org_id: number }[]): Promise<Map<number, Set<string>> | undefined> {
    const byCampaign = new Map<number, { orgId: number; sns: string[] }>();
    for (const t of targets) {
      const entry = byCampaign.get(t.campaign_id) ?? { orgId: t.org_id, sns: [] };
      entry.sns.push(t.sn);
      byCampaign.set(t.campaign_id, entry);
    }
    const charged = new Map<number, Set<string>>();
    try {
      for (const [campaignId, { orgId, sns }] of byCampaign) charged.set(campaignId, await chargeMany(this.#o.db, orgId, campaignId, sns, this.#o.clock.now()));
      return charged;
    } catch {
      return undefined;
    }
  }

  async #payload(campaignId: number, contentId: number, kind: string): Promise<PushFilePayload | undefined> {
    const item = await this.#o.db.selectFrom('content_items').selectAll().where('id', '=', contentId).executeTakeFirst();
    if (!item || !item.sha256) return undefined;
    return {
      campaignId,
      kind,
      url: `/content/blob/${item.sha256}`,
      sha256: item.sha256,
      size: Number(item.size),
      fileName: item.file_name || item.name,
      version: item.version || item.version_name,
      packageName: item.package_name,
      autoInstall: item.auto_install === 1,
    };
  }

  async #send(
    t: { id: number; sn: string; attempts: number; campaign_id: number; org_id: number; kind: string; max_retries: number },
    payload: PushFilePayload,
    batchCharged: Map<number, Set<string>> | undefined,
  ): Promise<void> {
    const { db, clock, gateway } = this.#o;
    if (t.kind === 'firmware') {
      let charged: boolean;
      try {
        charged = batchCharged ? (batchCharged.get(t.campaign_id)?.has(t.sn) ?? false) : await chargeOnce(db, t.org_id, t.campaign_id, t.sn, clock.now());
      } catch {
        // A concurrent charge of the same (campaign, device) won the unique key: it is charged.
        charged = true;
      }
      if (!charged) {
        await this.#settle(t.id, t.campaign_id, t.org_id, t.sn, Phase.Failed, { download_state: DownloadState.Failed, message: 'Not enough push coupons' });
        return;
      }
    }
    const reply = await gateway.command(t.sn, Command.PushFile, payload, { timeoutMs: 30_000 });
    const now = clock.now();
    if (reply.result === Result.Success) {
      const r = await db
        .updateTable('push_targets')
        .set({ phase: Phase.Sent, attempts: t.attempts + 1, download_state: DownloadState.Waiting, progress: 0, install_result: InstallResult.Preparing, message: '', updated_at: now })
        .where('id', '=', t.id)
        .where('phase', '=', Phase.Queued)
        .executeTakeFirst();
      // The row is what was just written: no need to read it back (one query less per device).
      if (Number(r.numUpdatedRows) === 1) {
        this.#emitKnown({ campaignId: t.campaign_id, orgId: t.org_id, sn: t.sn, pushResult: PushResult.Pushing, downloadState: DownloadState.Waiting, progress: 0, installResult: InstallResult.Preparing, message: '', updateTime: now });
      }
      return;
    }
    if (reply.result === Result.DeviceOffline || reply.result === Result.DeviceNotLoggedIn) {
      // Not an attempt: it is sent again as soon as the device is back.
      await db.updateTable('push_targets').set({ next_attempt_at: now + this.#o.tickMs, updated_at: now }).where('id', '=', t.id).where('phase', '=', Phase.Queued).execute();
      return;
    }
    await this.#retryOrFail(t.id, t.campaign_id, t.org_id, t.sn, t.attempts + 1, t.max_retries, `push refused (result ${reply.result ?? '?'})`);
  }

  async #retryOrFail(id: number, campaignId: number, orgId: number, sn: string, attempts: number, maxRetries: number, message: string): Promise<void> {
    const now = this.#o.clock.now();
    if (attempts > maxRetries) {
      await this.#settle(id, campaignId, orgId, sn, Phase.Failed, { attempts, message });
      return;
    }
    await this.#o.db
      .updateTable('push_targets')
      .set({ phase: Phase.Queued, attempts, next_attempt_at: now + this.#o.backoffMs * 2 ** (attempts - 1), message, updated_at: now })
      .where('id', '=', id)
      .where('phase', 'in', [Phase.Queued, Phase.Sent])
      .execute();
    await this.#emit(id);
  }

  async #settle(id: number, _campaignId: number, _orgId: number, _sn: string, phase: string, extra: { download_state?: number; attempts?: number; message?: string }): Promise<void> {
    const now = this.#o.clock.now();
    await this.#o.db
      .updateTable('push_targets')
      .set({ phase, push_result: phase === Phase.Done ? PushResult.Success : PushResult.Fail, updated_at: now, ...extra })
      .where('id', '=', id)
      .where('phase', 'in', [Phase.Queued, Phase.Sent])
      .execute();
    await this.#emit(id);
  }

  async #onProgress(from: DeviceOrigin, env: Envelope): Promise<unknown> {
    const report = env.data as Partial<PushProgressReport> | undefined;
    const campaignId = Number(report?.campaignId);
    const downloadState = Number(report?.downloadState);
    if (!Number.isInteger(campaignId) || !Number.isInteger(downloadState) || downloadState < 0 || downloadState > 7) return { accepted: false };
    const { db, clock } = this.#o;
    const row = await db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .select(['t.id', 't.phase', 't.attempts', 't.push_result', 't.message', 'c.org_id', 'c.max_retries', 'c.state'])
      .where('t.campaign_id', '=', campaignId)
      .where('t.sn', '=', from.sn)
      .executeTakeFirst();
    // Only the device itself reports on its own row, and only while the row is open.
    if (!row || row.org_id === undefined || (row.phase !== Phase.Sent && row.phase !== Phase.Queued)) return { accepted: false };
    const progress = Math.max(0, Math.min(100, Math.round(Number(report?.progress) || 0)));
    const install = Number.isInteger(report?.installResult) ? Number(report?.installResult) : InstallResult.Preparing;
    const message = typeof report?.message === 'string' ? report.message.slice(0, 200) : '';
    const now = clock.now();
    if (downloadState === DownloadState.UpgradeSuccess || (downloadState === DownloadState.DownloadSuccess && install === InstallResult.Finished)) {
      await this.#settleWith(row.id, { campaignId, orgId: row.org_id, sn: from.sn }, { download_state: downloadState, progress: 100, install_result: InstallResult.Finished, message });
    } else if (FINAL_FAILURES.has(downloadState) || install === InstallResult.Failure) {
      await db.updateTable('push_targets').set({ download_state: downloadState, progress, install_result: install, updated_at: now }).where('id', '=', row.id).execute();
      await this.#retryOrFail(row.id, campaignId, row.org_id, from.sn, row.attempts + (row.phase === Phase.Sent ? 0 : 1), row.max_retries, message || 'download or install failed');
    } else {
      // A report for a row still queued means the device accepted before a restart: it is sent.
      const r = await db
        .updateTable('push_targets')
        .set({ phase: Phase.Sent, download_state: downloadState, progress, install_result: install, updated_at: now })
        .where('id', '=', row.id)
        .where('phase', 'in', [Phase.Queued, Phase.Sent])
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) {
        this.#emitKnown({ campaignId, orgId: row.org_id, sn: from.sn, pushResult: row.push_result, downloadState, progress, installResult: install, message: row.message, updateTime: now });
      }
    }
    return { accepted: true };
  }

  /** A device's success: the row closes as done, and consoles get it without a read-back. */
  async #settleWith(id: number, who: { campaignId: number; orgId: number; sn: string }, set: { download_state: number; progress: number; install_result: number; message: string }): Promise<void> {
    const now = this.#o.clock.now();
    const r = await this.#o.db
      .updateTable('push_targets')
      .set({ phase: Phase.Done, push_result: PushResult.Success, updated_at: now, ...set })
      .where('id', '=', id)
      .where('phase', 'in', [Phase.Queued, Phase.Sent])
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) {
      this.#emitKnown({ ...who, pushResult: PushResult.Success, downloadState: set.download_state, progress: set.progress, installResult: set.install_result, message: set.message, updateTime: now });
    }
    this.poke();
  }

  #emitKnown(update: TargetUpdate): void {
    this.events.emit('target', update);
  }

  async #emit(id: number): Promise<void> {
    const row = await this.#o.db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .select(['t.campaign_id', 'c.org_id', 't.sn', 't.push_result', 't.download_state', 't.progress', 't.install_result', 't.message', 't.updated_at'])
      .where('t.id', '=', id)
      .executeTakeFirst();
    if (!row) return;
    this.events.emit('target', {
      campaignId: row.campaign_id,
      orgId: row.org_id,
      sn: row.sn,
      pushResult: row.push_result,
      downloadState: row.download_state,
      progress: row.progress,
      installResult: row.install_result,
      message: row.message,
      updateTime: Number(row.updated_at),
    });
  }

  async #finishCampaigns(): Promise<void> {
    const { db, clock } = this.#o;
    const running = await db.selectFrom('push_campaigns').select(['id', 'org_id', 'stage_size', 'current_stage', 'success_percent', 'error_percent']).where('state', '=', CampaignState.Running).execute();
    for (const c of running) {
      if (c.stage_size > 0 && (await this.#stageGate(c))) continue;
      const open = await db.selectFrom('push_targets').select('id').where('campaign_id', '=', c.id).where('phase', 'in', [Phase.Queued, Phase.Sent]).limit(1).executeTakeFirst();
      if (open) continue;
      await db.updateTable('push_campaigns').set({ state: CampaignState.Finished, updated_at: clock.now() }).where('id', '=', c.id).where('state', '=', CampaignState.Running).execute();
      this.events.emit('campaign', { id: c.id, orgId: c.org_id, state: CampaignState.Finished });
    }
  }

  /**
   * Staged rollout: pauses the campaign when the current stage reaches the error threshold (an emergency
   * stop), and opens the next stage when it reaches the success threshold. True while stages remain.
   */
  async #stageGate(c: { id: number; org_id: number; current_stage: number; success_percent: number; error_percent: number }): Promise<boolean> {
    const { db, clock } = this.#o;
    const rows = await db
      .selectFrom('push_targets')
      .select(['phase', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('campaign_id', '=', c.id)
      .where('stage', '=', c.current_stage)
      .groupBy('phase')
      .execute();
    const by = Object.fromEntries(rows.map((r) => [r.phase, Number(r.n)]));
    const total = rows.reduce((sum, r) => sum + Number(r.n), 0);
    if (total === 0) return false;
    const now = clock.now();
    if ((100 * (by[Phase.Failed] ?? 0)) / total >= c.error_percent) {
      const message = `Paused: ${by[Phase.Failed] ?? 0} of ${total} devices failed (error threshold ${c.error_percent}%)`;
      await db.updateTable('push_campaigns').set({ state: CampaignState.Paused, message, updated_at: now }).where('id', '=', c.id).where('state', '=', CampaignState.Running).execute();
      this.events.emit('campaign', { id: c.id, orgId: c.org_id, state: CampaignState.Paused });
      return true;
    }
    const more = await db.selectFrom('push_targets').select('id').where('campaign_id', '=', c.id).where('stage', '>', c.current_stage).limit(1).executeTakeFirst();
    if (more && (100 * (by[Phase.Done] ?? 0)) / total >= c.success_percent) {
      await db.updateTable('push_campaigns').set({ current_stage: c.current_stage + 1, updated_at: now }).where('id', '=', c.id).where('current_stage', '=', c.current_stage).execute();
      this.events.emit('campaign', { id: c.id, orgId: c.org_id, state: CampaignState.Running });
      this.poke();
      return true;
    }
    return !!more;
  }
}
