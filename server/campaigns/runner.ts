import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import mitt from 'mitt';
import { campaignWait, type Clock, Command, decodePushProgress, parseWindow, DownloadState, type Envelope, InstallResult, OnlineState, PushResult, type PushFileRequest, Result, type TimerHandle } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { DeviceOrigin } from '../gateway/device-endpoint.ts';
import { chargeMany, chargeOnce } from './coupons.ts';
import { type CampaignChange, Subject, type TargetUpdate } from '../bus/subjects.ts';
import { sqlTargetWriter, TargetWriter, type TargetWho, type WrittenTarget } from './target-writer.ts';
import { emitWebhook } from '../webhooks/emit.ts';

/** A campaign's lifecycle (ours; the spec shows per-device states only). */
export const CampaignState = { AwaitingApproval: 'awaiting_approval', Running: 'running', Paused: 'paused', Cancelled: 'cancelled', Finished: 'finished' } as const;
/** Where the runner is with one device. */
export const Phase = { Queued: 'queued', Sent: 'sent', Done: 'done', Failed: 'failed', Cancelled: 'cancelled' } as const;

export interface RunnerOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly gateway: Gateway;
  /**
   * Most PushFile commands awaiting the device's answer at once. 2,000: a device answers in milliseconds,
   * so this keeps the pipe full (10,000 devices in a handful of passes) while a slow or silent fleet holds
   * at most this many pending commands and timers.
   */
  readonly concurrency?: number;
  readonly tickMs?: number;
  /** First retry delay; doubles each attempt. */
  readonly backoffMs?: number;
  /** A device that accepted and then went silent this long is sent the push again. */
  readonly staleMs?: number;
  /** Longest a device's progress waits to be written (and acknowledged); see TargetWriter. */
  readonly flushMs?: number;
  readonly log: { warn(obj: object, msg: string): void };
  /**
   * Adds the devices that joined running campaigns' dynamic groups as targets (server/groups/joiners.ts);
   * answers how many. Called on each sweep, before dispatch.
   */
  readonly joiners?: (now: number) => Promise<number>;
}

/** Targets claimed, charged and pushed together: one claim statement and one coupon transaction each. */
const DISPATCH_CHUNK = 500;
/** Longest wait for a device's answer to PushFile. */
const PUSH_TIMEOUT_MS = 30_000;
/** How long a claimed target is left to the pass that claimed it: its push's answer, and a margin. */
const CLAIM_MS = PUSH_TIMEOUT_MS + 15_000;

const FINAL_FAILURES: ReadonlySet<number> = new Set([DownloadState.Failed, DownloadState.UpgradeFailed]);

/** What the runner knows of a target it dispatched or was reported on, so a report needs no read. */
interface OpenTarget extends TargetWho {
  readonly id: number;
}

/** Reports waiting for one target to be read. */
interface Lookup {
  readonly campaignId: number;
  readonly sn: string;
  readonly resolve: ((t: OpenTarget | undefined) => void)[];
  readonly reject: ((err: unknown) => void)[];
}

const keyOf = (campaignId: number, sn: string) => `${campaignId}\n${sn}`;

/**
 * Runs push campaigns from the database: every decision is a row, so a restarted server picks up where
 * the last one stopped. Dispatches PushFile to online devices with bounded concurrency, waits for offline
 * ones up to the campaign's window, retries failures with backoff, charges one coupon per firmware push
 * exactly once, and streams every per-device change to consoles (on every node, when the bus is shared).
 * Per-device progress goes through a write-behind batcher (TargetWriter): one statement per few
 * milliseconds instead of one per report, with each report acknowledged once it is committed.
 */
export class CampaignRunner {
  readonly events = mitt<{ target: TargetUpdate; campaign: CampaignChange }>();
  readonly #o: Required<Omit<RunnerOptions, 'log' | 'joiners'>> & Pick<RunnerOptions, 'log' | 'joiners'>;
  readonly #writer: TargetWriter;
  /** This runner's id on the bus, so it ignores its own progress coming back. */
  readonly #node = randomUUID();
  #timer: TimerHandle | undefined;
  #inflight = 0;
  #ticking = false;
  #again = false;
  #stopped = true;
  /** When the next pass sweeps (see #tick). */
  #nextSweep = 0;
  readonly #sending = new Set<number>();
  /** Open targets this node has dispatched or heard from, by campaign and device. */
  readonly #open = new Map<string, OpenTarget>();
  /** Reports whose target is not known here yet (after a restart, or dispatched by another node): read in batches. */
  #lookups = new Map<string, Lookup>();
  #lookupTimer: TimerHandle | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(opts: RunnerOptions) {
    this.#o = { concurrency: 2_000, tickMs: 500, backoffMs: 2_000, staleMs: 10 * 60_000, flushMs: 5, ...opts };
    this.#writer = new TargetWriter({
      clock: this.#o.clock,
      flushMs: this.#o.flushMs,
      write: sqlTargetWriter(this.#o.db),
      onWritten: (rows) => this.#written(rows),
      log: this.#o.log,
    });
  }

  start(): void {
    this.#stopped = false;
    this.#o.gateway.onDeviceMessage(Command.PushProgress, (from, env) => this.#onProgress(from, env));
    const bus = this.#o.gateway.bus;
    if (bus.shared && !this.#unsubscribe) {
      // Progress written on another node, for the consoles following it here.
      this.#unsubscribe = bus.subscribe(Subject.campaignProgress, (m) => {
        if (m.node === this.#node) return;
        for (const t of m.targets) this.events.emit('target', t);
        for (const c of m.campaigns) this.events.emit('campaign', c);
      });
    }
    this.#schedule(0);
  }

  /** Stops dispatching and writes every queued report (shutdown). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#writer.drain();
  }

  /** Runs a pass now (new campaign, resumed campaign) instead of at the next tick. */
  poke(): void {
    if (this.#ticking) this.#again = true;
    else this.#schedule(0);
  }

  /** A campaign changed state (started, paused, cancelled, finished): consoles here and on other nodes hear it. */
  announceCampaign(c: CampaignChange): void {
    this.events.emit('campaign', c);
    this.#publish([], [c]);
  }

  #publish(targets: readonly TargetUpdate[], campaigns: readonly CampaignChange[]): void {
    const bus = this.#o.gateway.bus;
    if (bus.shared) bus.publish(Subject.campaignProgress, { node: this.#node, targets, campaigns });
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
      // While pushes are in flight, passes come every few hundred answers: the sweeps that read many rows
      // (expiry, silent devices, finishing, stage gates) run once per tick interval, and whenever nothing
      // is in flight (so a campaign finishes as soon as its last report is written).
      const now = this.#o.clock.now();
      const sweep = this.#inflight === 0 || now >= this.#nextSweep;
      if (sweep) {
        this.#nextSweep = now + this.#o.tickMs;
        await this.#expireAndRecover();
        if (this.#o.joiners) await this.#o.joiners(now);
      }
      // Dispatch needs no flush: a target stays in #sending until its accept is written.
      await this.#dispatchDue();
      if (sweep) {
        // Finishing and stage gates count the rows: everything reported so far is written first.
        await this.#writer.flush();
        await this.#finishCampaigns();
      }
    } catch (err) {
      if (!this.#stopped) this.#o.log.warn({ err }, 'push campaign pass failed');
    } finally {
      this.#ticking = false;
      const again = this.#again;
      this.#again = false;
      this.#schedule(again ? 0 : this.#o.tickMs);
    }
  }

  /** A flush committed: consoles get the rows as written; closed rows are forgotten and may finish a campaign. */
  #written(rows: readonly WrittenTarget[]): void {
    let closed = false;
    const updates: TargetUpdate[] = [];
    for (const r of rows) {
      const update: TargetUpdate = { ...r.who, pushResult: r.pushResult, downloadState: r.downloadState, progress: r.progress, installResult: r.installResult, message: r.message, updateTime: r.updateTime };
      updates.push(update);
      this.events.emit('target', update);
      if (r.phase !== Phase.Queued && r.phase !== Phase.Sent) {
        this.#open.delete(keyOf(r.who.campaignId, r.who.sn));
        closed = true;
      }
    }
    this.#publish(updates, []);
    if (closed) this.poke();
  }

  async #expireAndRecover(): Promise<void> {
    const { db, clock } = this.#o;
    const now = clock.now();
    // Devices that stayed offline past the campaign's window fail; nothing was charged for them.
    // A campaign waiting for its start or its window is not dispatching: its devices do not expire meanwhile,
    // and the offline window counts from the scheduled start.
    const waiting = await this.#waitingCampaigns(now);
    const expired = await db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .select(['t.id', 't.campaign_id', 't.sn', 'c.org_id'])
      .where('c.state', '=', CampaignState.Running)
      .where('t.phase', '=', Phase.Queued)
      .$if(waiting.length > 0, (q) => q.where('c.id', 'not in', waiting))
      .where(sql<number>`coalesce(c.start_at, c.created_at) + c.offline_window_ms`, '<', now)
      .limit(1000)
      .execute();
    for (const t of expired) await this.#settle(t.id, t.campaign_id, t.org_id, t.sn, Phase.Failed, { download_state: DownloadState.Failed, message: 'The equipment is offline' });
    // Accepted long ago and silent since: the device lost the job (or a report); send it again. Read
    // first: an UPDATE takes SQLite's write lock even when it changes nothing, and each process of a node
    // runs this pass every tickMs; a worker then slept in the busy handler behind the node's login writer
    // during a storm (4.7 ms a pass, 661 ms of a worker's event loop for 20,000 logins).
    const stale = now - this.#o.staleMs;
    const lost = await db.selectFrom('push_targets').select('id').where('phase', '=', Phase.Sent).where('updated_at', '<', stale).limit(1_000).execute();
    if (lost.length === 0) return;
    await db
      .updateTable('push_targets')
      .set({ phase: Phase.Queued, next_attempt_at: now })
      .where('id', 'in', lost.map((t) => t.id))
      .where('phase', '=', Phase.Sent)
      .where('updated_at', '<', stale)
      .execute();
  }

  /**
   * Running campaigns that must not dispatch now: scheduled for later, or outside their maintenance window
   * (issue 23). Few campaigns have either, so this reads only those rows.
   */
  async #waitingCampaigns(now: number): Promise<number[]> {
    const rows = await this.#o.db
      .selectFrom('push_campaigns')
      .select(['id', 'start_at', 'window_json'])
      .where('state', '=', CampaignState.Running)
      .where((eb) => eb.or([eb('start_at', '>', now), eb('window_json', '<>', '')]))
      .execute();
    return rows.filter((r) => campaignWait(r.start_at === null ? null : Number(r.start_at), parseWindow(r.window_json), now) !== undefined).map((r) => r.id);
  }

  async #dispatchDue(): Promise<void> {
    const { db, clock } = this.#o;
    const room = this.#o.concurrency - this.#inflight;
    if (room <= 0) return;
    const now = clock.now();
    const waiting = await this.#waitingCampaigns(now);
    const due = await db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .innerJoin('devices as d', 'd.sn', 't.sn')
      .select(['t.id', 't.sn', 't.attempts', 't.campaign_id', 'c.org_id', 'c.kind', 'c.content_id', 'c.max_retries'])
      .where('c.state', '=', CampaignState.Running)
      .where('t.phase', '=', Phase.Queued)
      .where('t.next_attempt_at', '<=', now)
      .$if(waiting.length > 0, (q) => q.where('c.id', 'not in', waiting))
      .whereRef('t.stage', '<=', 'c.current_stage')
      .where('d.online_state', '=', OnlineState.Online)
      .orderBy('t.id')
      .limit(room)
      .execute();
    // In chunks, side by side: each claims, charges and pushes its own devices, so the first pushes go
    // after one claim and one charge, and the chunks' round trips to the database overlap (their coupon
    // transactions still take the organisation's balance row one after the other).
    const contents = new Map<number, Promise<PushFileRequest | undefined>>();
    const chunks: (typeof due)[] = [];
    for (let i = 0; i < due.length; i += DISPATCH_CHUNK) chunks.push(due.slice(i, i + DISPATCH_CHUNK));
    await Promise.all(chunks.map((chunk) => this.#dispatchChunk(chunk, now, contents)));
  }

  async #dispatchChunk(
    chunk: readonly { id: number; sn: string; attempts: number; campaign_id: number; org_id: number; kind: string; content_id: number; max_retries: number }[],
    now: number,
    contents: Map<number, Promise<PushFileRequest | undefined>>,
  ): Promise<void> {
    const claimed = await this.#claim(chunk.map((t) => t.id), now);
    const batch: { t: (typeof chunk)[number]; payload: PushFileRequest }[] = [];
    for (const t of chunk) {
      if (!claimed.has(t.id) || this.#sending.has(t.id) || this.#inflight >= this.#o.concurrency) continue;
      let content = contents.get(t.campaign_id);
      if (!content) contents.set(t.campaign_id, (content = this.#payload(t.campaign_id, t.content_id, t.kind)));
      const payload = await content;
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
      void this.#send(t, payload, charged)
        .catch((err: unknown) => this.#o.log.warn({ err, sn: t.sn }, 'push dispatch failed'))
        .finally(() => {
          this.#sending.delete(t.id);
          this.#inflight--;
          // Half the window free: the next pass fills it (one pass per many answers, not one per answer).
          if (this.#inflight === Math.floor(this.#o.concurrency / 2) || this.#inflight === 0) this.poke();
        });
    }
  }

  /**
   * Claims due targets for this pass by moving their next attempt a lease ahead: a row being pushed is no
   * longer due, so the next pass (here, or on another node or worker) does not read it again or push it
   * twice. Every outcome of the push sets the row's next step itself; the lease only matters when a node
   * dies mid-push, and then another node takes the target over when it ends.
   */
  async #claim(ids: readonly number[], now: number): Promise<Set<number>> {
    const claimed = new Set<number>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.#o.db
        .updateTable('push_targets')
        .set({ next_attempt_at: now + CLAIM_MS })
        .where('id', 'in', ids.slice(i, i + 500))
        .where('phase', '=', Phase.Queued)
        .where('next_attempt_at', '<=', now)
        .returning('id')
        .execute();
      for (const r of rows) claimed.add(r.id);
    }
    return claimed;
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

  async #payload(campaignId: number, contentId: number, kind: string): Promise<PushFileRequest | undefined> {
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
    payload: PushFileRequest,
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
    // Known before the command goes: the device's first reports can be read in the same socket chunk as
    // its answer, before the answer's continuation runs.
    const target: OpenTarget = { id: t.id, campaignId: t.campaign_id, orgId: t.org_id, sn: t.sn };
    this.#open.set(keyOf(t.campaign_id, t.sn), target);
    const reply = await gateway.command(t.sn, Command.PushFile, payload, { timeoutMs: PUSH_TIMEOUT_MS, source: 'campaign' });
    const now = clock.now();
    if (reply.result === Result.Success) {
      // Written with the device's first reports (they coalesce; a report already queued keeps its newer
      // state, hence `under`); the target stays "sending" until it is written, so no pass reads the row as
      // still queued and pushes it twice.
      await this.#writer.put(t.id, target, { phase: Phase.Sent, attempts: t.attempts + 1, download_state: DownloadState.Waiting, progress: 0, install_result: InstallResult.Preparing, message: '', updated_at: now }, 'under');
      return;
    }
    this.#open.delete(keyOf(t.campaign_id, t.sn));
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
    const report = decodePushProgress(env.data);
    if (!report) return { accepted: false };
    const { campaignId, downloadState } = report;
    // Only the device itself reports on its own row, and only while the row is open.
    const target = this.#open.get(keyOf(campaignId, from.sn)) ?? (await this.#lookup(campaignId, from.sn));
    if (!target) return { accepted: false };
    const progress = report.progress;
    const install = report.installResult ?? InstallResult.Preparing;
    const message = report.message ?? '';
    const now = this.#o.clock.now();
    // Duplicated download (7): the device already has this content, so the push is done without a download.
    if (downloadState === DownloadState.UpgradeSuccess || downloadState === DownloadState.DuplicatedDownload || (downloadState === DownloadState.DownloadSuccess && install === InstallResult.Finished)) {
      const accepted = await this.#writer.put(target.id, target, { phase: Phase.Done, push_result: PushResult.Success, download_state: downloadState, progress: 100, install_result: InstallResult.Finished, message, updated_at: now });
      return { accepted };
    }
    if (FINAL_FAILURES.has(downloadState) || install === InstallResult.Failure) {
      // Rare, and it decides a retry: written at once, from the row as it stands.
      await this.#writer.flush();
      this.#open.delete(keyOf(campaignId, from.sn));
      return { accepted: await this.#onFailure(target.id, campaignId, from.sn, { download_state: downloadState, progress, install_result: install, updated_at: now }, message) };
    }
    // A report for a row still queued means the device accepted before a restart: it is sent.
    const accepted = await this.#writer.put(target.id, target, { phase: Phase.Sent, download_state: downloadState, progress, install_result: install, updated_at: now });
    return { accepted };
  }

  async #onFailure(id: number, campaignId: number, sn: string, set: { download_state: number; progress: number; install_result: number; updated_at: number }, message: string): Promise<boolean> {
    const { db } = this.#o;
    const row = await db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .select(['t.phase', 't.attempts', 'c.org_id', 'c.max_retries'])
      .where('t.id', '=', id)
      .executeTakeFirst();
    if (!row || (row.phase !== Phase.Sent && row.phase !== Phase.Queued)) return false;
    await db.updateTable('push_targets').set(set).where('id', '=', id).execute();
    await this.#retryOrFail(id, campaignId, row.org_id, sn, row.attempts + (row.phase === Phase.Sent ? 0 : 1), row.max_retries, message || 'download or install failed');
    return true;
  }

  /** Finds an open target this node does not know yet; lookups of one moment share one query per campaign. */
  #lookup(campaignId: number, sn: string): Promise<OpenTarget | undefined> {
    return new Promise((resolve, reject) => {
      const key = keyOf(campaignId, sn);
      const entry = this.#lookups.get(key) ?? { campaignId, sn, resolve: [], reject: [] };
      entry.resolve.push(resolve);
      entry.reject.push(reject);
      this.#lookups.set(key, entry);
      if (this.#lookupTimer !== undefined) return;
      this.#lookupTimer = this.#o.clock.setTimeout(() => {
        this.#lookupTimer = undefined;
        const batch = this.#lookups;
        this.#lookups = new Map();
        void this.#readTargets(batch);
      }, 0);
    });
  }

  async #readTargets(batch: Map<string, Lookup>): Promise<void> {
    const byCampaign = new Map<number, string[]>();
    for (const e of batch.values()) {
      const sns = byCampaign.get(e.campaignId) ?? [];
      sns.push(e.sn);
      byCampaign.set(e.campaignId, sns);
    }
    try {
      for (const [campaignId, sns] of byCampaign) {
        for (let i = 0; i < sns.length; i += 500) {
          const rows = await this.#o.db
            .selectFrom('push_targets as t')
            .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
            .select(['t.id', 't.sn', 'c.org_id'])
            .where('t.campaign_id', '=', campaignId)
            .where('t.sn', 'in', sns.slice(i, i + 500))
            .where('t.phase', 'in', [Phase.Queued, Phase.Sent])
            .execute();
          for (const r of rows) {
            this.#open.set(keyOf(campaignId, r.sn), { id: r.id, campaignId, orgId: r.org_id, sn: r.sn });
          }
        }
      }
    } catch (err) {
      // The reports are answered as failed (not stored), so their devices send them again.
      this.#o.log.warn({ err }, 'push target lookup failed');
      for (const e of batch.values()) for (const r of e.reject) r(err);
      return;
    }
    for (const [key, e] of batch) for (const r of e.resolve) r(this.#open.get(key));
  }

  async #emit(id: number): Promise<void> {
    const row = await this.#o.db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .select(['t.campaign_id', 'c.org_id', 't.sn', 't.phase', 't.push_result', 't.download_state', 't.progress', 't.install_result', 't.message', 't.updated_at'])
      .where('t.id', '=', id)
      .executeTakeFirst();
    if (!row) return;
    if (row.phase !== Phase.Queued && row.phase !== Phase.Sent) this.#open.delete(keyOf(row.campaign_id, row.sn));
    const update: TargetUpdate = {
      campaignId: row.campaign_id,
      orgId: row.org_id,
      sn: row.sn,
      pushResult: row.push_result,
      downloadState: row.download_state,
      progress: row.progress,
      installResult: row.install_result,
      message: row.message,
      updateTime: Number(row.updated_at),
    };
    this.events.emit('target', update);
    this.#publish([update], []);
  }

  async #finishCampaigns(): Promise<void> {
    const { db, clock } = this.#o;
    const running = await db
      .selectFrom('push_campaigns')
      .select(['id', 'org_id', 'stage_size', 'current_stage', 'success_percent', 'error_percent', 'group_id', 'start_at', 'created_at', 'offline_window_ms'])
      .where('state', '=', CampaignState.Running)
      .execute();
    const now = clock.now();
    for (const c of running) {
      if (c.stage_size > 0 && (await this.#stageGate(c))) continue;
      // A campaign for a dynamic group takes the devices that join it until its offline window ends.
      if (c.group_id !== null && now < Number(c.start_at ?? c.created_at) + Number(c.offline_window_ms)) continue;
      const open = await db.selectFrom('push_targets').select('id').where('campaign_id', '=', c.id).where('phase', 'in', [Phase.Queued, Phase.Sent]).limit(1).executeTakeFirst();
      if (open) continue;
      const finished = await db.updateTable('push_campaigns').set({ state: CampaignState.Finished, updated_at: clock.now() }).where('id', '=', c.id).where('state', '=', CampaignState.Running).executeTakeFirst();
      this.announceCampaign({ id: c.id, orgId: c.org_id, state: CampaignState.Finished });
      // Once in a cluster: only the runner whose update moved the campaign tells the webhooks.
      if (Number(finished.numUpdatedRows) === 1) emitWebhook(db, c.org_id, 'campaign.finished', { campaignId: c.id });
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
      const halted = await db.updateTable('push_campaigns').set({ state: CampaignState.Paused, message, updated_at: now }).where('id', '=', c.id).where('state', '=', CampaignState.Running).executeTakeFirst();
      this.announceCampaign({ id: c.id, orgId: c.org_id, state: CampaignState.Paused });
      if (Number(halted.numUpdatedRows) === 1) emitWebhook(db, c.org_id, 'campaign.halted', { campaignId: c.id, message });
      return true;
    }
    const more = await db.selectFrom('push_targets').select('id').where('campaign_id', '=', c.id).where('stage', '>', c.current_stage).limit(1).executeTakeFirst();
    if (more && (100 * (by[Phase.Done] ?? 0)) / total >= c.success_percent) {
      await db.updateTable('push_campaigns').set({ current_stage: c.current_stage + 1, updated_at: now }).where('id', '=', c.id).where('current_stage', '=', c.current_stage).execute();
      this.announceCampaign({ id: c.id, orgId: c.org_id, state: CampaignState.Running });
      this.poke();
      return true;
    }
    return !!more;
  }
}
