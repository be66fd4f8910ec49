import { useSyncExternalStore } from 'react';
import type { PushStartReply, PushStartRequest, PushStarted, PushState } from '../../../protocol/api/campaigns.ts';
import { DownloadState, InstallResult, PushResult, Result } from '../../../protocol/index.ts';
import type { CampaignEvent, followPushes, PushLogRow, PushStreamStatus, TargetEvent } from '../../api/content.ts';
import type { Page } from '../../api/devices.ts';
import type { BulkSummary, Outcome } from './bulk-run.ts';
import { RunPublisher } from './run-publisher.ts';

/** A device's push outcome: the command outcomes, plus a push under way with its download and install state. */
export type PushOutcome = Outcome | { readonly state: 'pushing'; readonly downloadState: number; readonly progress: number; readonly installResult: number; readonly message?: string };

/** What the results panel reads, whether the run is a command to many devices or a push campaign. */
export interface RunResults {
  readonly sns: readonly string[];
  readonly summary: BulkSummary;
  readonly failed: string[];
  readonly version: number;
  outcome(sn: string): PushOutcome;
  subscribe(listener: () => void): () => void;
}

/** Re-renders on a run's per-frame publications; returns its version. */
export function useRunResults(run: RunResults | undefined): number {
  return useSyncExternalStore(
    (l) => run?.subscribe(l) ?? (() => undefined),
    () => run?.version ?? 0,
  );
}


/** The panel's outcome for a push state: the push result decides success and failure, the rest is progress. */
export function outcomeOfPush(s: PushState | undefined): PushOutcome {
  if (!s) return { state: 'waiting' };
  if (s.pushResult === PushResult.Success) return { state: 'done', result: Result.Success };
  if (s.pushResult === PushResult.Fail) return { state: 'done', result: Result.Fail, message: s.message || undefined };
  if (s.downloadState === DownloadState.Waiting && s.progress === 0 && s.installResult === InstallResult.Preparing) return { state: 'waiting' };
  return { state: 'pushing', downloadState: s.downloadState, progress: s.progress, installResult: s.installResult, message: s.message || undefined };
}

const isFinal = (s: PushState | undefined) => s !== undefined && s.pushResult !== PushResult.Pushing;

/** What a push run needs from the server, injected so a test can run it without one. */
export interface PushRunPorts {
  start(body: PushStartRequest): Promise<PushStartReply>;
  readLog(campaignId: number, pageNum: number, pageSize: number): Promise<Page<PushLogRow>>;
  follow: typeof followPushes;
}

/** The content a push run sends: chosen once, and sent again to the devices a retry names. */
export interface PushPlan {
  readonly kind: string;
  readonly contentId: number;
  readonly contentName: string;
}

/** Rows per push-log read when the panel catches up (the largest page the list serves). */
const LOG_PAGE = 100;

/**
 * A push campaign followed in the remote management results panel: per-device outcomes from the push-log
 * stream, read again from the push log on every (re)connection (the stream does not replay what it missed),
 * and retries of failed devices as new campaigns within the same run, so the panel keeps every device.
 */
export class PushRun implements RunResults {
  readonly plan: PushPlan;
  readonly sns: readonly string[];
  /** The campaign each device's outcome comes from (its latest, after retries). */
  readonly #campaignOf = new Map<string, number>();
  readonly #states = new Map<string, PushState>();
  readonly #campaigns: number[] = [];
  readonly #publisher = new RunPublisher();
  readonly #stop = new AbortController();
  readonly #ports: PushRunPorts;
  #summary: { version: number; value: BulkSummary } = { version: -1, value: { total: 0, done: 0, ok: 0, failed: 0 } };
  #catchingUp: Promise<void> | undefined;
  #catchUpAgain = false;
  #status: PushStreamStatus | undefined;

  constructor(plan: PushPlan, started: PushStarted, ports: PushRunPorts) {
    this.plan = plan;
    this.#ports = ports;
    this.sns = [...started.sns];
    this.#adopt(started);
  }

  /** Follows the stream (every campaign of the caller's organisations, filtered here to this run's). */
  start(): void {
    void this.#ports.follow(undefined, (e) => this.#onEvent(e), this.#stop.signal, {
      onStatus: (s) => {
        this.#status = s;
        this.#publisher.changed();
        if (s === 'live') void this.#catchUp();
      },
    });
  }

  dispose(): void {
    this.#stop.abort();
    this.#publisher.clear();
  }

  /** The campaigns of this run, first one first. */
  get campaigns(): readonly number[] {
    return this.#campaigns;
  }

  get streamStatus(): PushStreamStatus | undefined {
    return this.#status;
  }

  /**
   * Pushes the same content again to the devices that failed, as one new campaign; their outcomes start over.
   * The model question was answered for the whole run, so it is not asked again for a part of it.
   */
  async retryFailed(): Promise<void> {
    const failed = this.failed;
    if (failed.length === 0) return;
    const reply = await this.#ports.start({ kind: this.plan.kind, contentId: this.plan.contentId, sns: failed, confirmModelMismatch: true });
    if ('confirm' in reply) return;
    this.#adopt(reply);
    this.#publisher.changed();
    void this.#catchUp();
  }

  #adopt(started: PushStarted): void {
    this.#campaigns.push(started.campaign.id);
    for (const sn of started.sns) {
      this.#campaignOf.set(sn, started.campaign.id);
      this.#states.delete(sn);
    }
  }

  #onEvent(e: TargetEvent | CampaignEvent): void {
    if (e.type === 'campaign') {
      // A cancel settles the waiting devices without a per-device event: read them.
      if (this.#campaigns.includes(e.id) && e.state === 'cancelled') void this.#catchUp();
      return;
    }
    if (this.#apply(e.campaignId, e.sn, e)) this.#publisher.changed();
  }

  /** Records a state unless it is of an older campaign of the device or older than what is known. */
  #apply(campaignId: number, sn: string, s: PushState): boolean {
    if (this.#campaignOf.get(sn) !== campaignId) return false;
    const known = this.#states.get(sn);
    if (known && (known.updateTime > s.updateTime || isFinal(known))) return false;
    this.#states.set(sn, { pushResult: s.pushResult, downloadState: s.downloadState, progress: s.progress, installResult: s.installResult, message: s.message, updateTime: s.updateTime });
    return true;
  }

  /** Reads the push log of every campaign that still has devices under way; one reader at a time. */
  async #catchUp(): Promise<void> {
    if (this.#catchingUp) {
      this.#catchUpAgain = true;
      return this.#catchingUp;
    }
    this.#catchingUp = (async () => {
      do {
        this.#catchUpAgain = false;
        const open = new Set(this.sns.filter((sn) => !isFinal(this.#states.get(sn))).map((sn) => this.#campaignOf.get(sn)));
        for (const campaignId of this.#campaigns) {
          if (!open.has(campaignId)) continue;
          for (let page = 1; !this.#stop.signal.aborted; page++) {
            const log = await this.#ports.readLog(campaignId, page, LOG_PAGE).catch(() => undefined);
            if (!log) break;
            let changed = false;
            for (const row of log.list) changed = this.#apply(row.campaignId, row.sn, row) || changed;
            if (changed) this.#publisher.changed();
            if (page * LOG_PAGE >= log.total || log.list.length === 0) break;
          }
        }
      } while (this.#catchUpAgain && !this.#stop.signal.aborted);
    })().finally(() => (this.#catchingUp = undefined));
    return this.#catchingUp;
  }

  outcome(sn: string): PushOutcome {
    return outcomeOfPush(this.#states.get(sn));
  }

  get summary(): BulkSummary {
    if (this.#summary.version !== this.#publisher.version) {
      let ok = 0;
      let failed = 0;
      for (const sn of this.sns) {
        const r = this.#states.get(sn)?.pushResult;
        if (r === PushResult.Success) ok++;
        else if (r === PushResult.Fail) failed++;
      }
      this.#summary = { version: this.#publisher.version, value: { total: this.sns.length, done: ok + failed, ok, failed } };
    }
    return this.#summary.value;
  }

  /** Serials whose push failed for good (the campaign's own retries are spent). */
  get failed(): string[] {
    return this.sns.filter((sn) => this.#states.get(sn)?.pushResult === PushResult.Fail);
  }

  get version(): number {
    return this.#publisher.version;
  }

  subscribe(listener: () => void): () => void {
    return this.#publisher.subscribe(listener);
  }
}
