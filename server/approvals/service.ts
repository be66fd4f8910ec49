import { APPROVE_PERMISSION, type ApprovalCount, type ApprovalKind, type ApprovalListBody, type ApprovalPolicy, type ApprovalState, type ApprovalView } from '../../protocol/api/approvals.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { TimelineSource } from '../../protocol/api/timeline.ts';
import { type ApprovalDecidedEvent, type Clock, formatMessage, Result, wipesDevice } from '../../protocol/index.ts';
import { type Caller, loadCaller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import type { TimelineWriter } from '../timeline/writer.ts';
import { ApprovalRepository } from './repository.ts';
import type { ApprovalRow } from './tables.ts';

/** Runs an approved request as its requester through the existing command path; answers the outcome kept on the request. */
export type ApprovalExecutor = (row: ApprovalRow) => Promise<unknown>;

/** What a request is about, as the command paths describe it. */
export interface ApprovalSubject {
  readonly kind: ApprovalKind;
  readonly msgId: number;
  /** The command's data and options (ttlSeconds), or a campaign's summary. */
  readonly params: unknown;
  /** Each target device with its organisation now. */
  readonly targets: readonly { readonly sn: string; readonly orgId: number }[];
  readonly source: TimelineSource;
  readonly campaignId?: number;
}

/** Who asks: the account behind a REST call or a console socket. */
export type Requester = Pick<Caller, 'accountId' | 'account' | 'orgId'>;

/**
 * The console socket's hook (server/gateway/console-endpoint.ts): a command that must wait for approval
 * becomes a request, answered with result 7 and {@link waitingReply}; undefined (at once, without a
 * promise, for every command that never waits) lets it run now.
 */
export interface ConsoleApprovals {
  intercept(caller: Caller, msgId: number, sn: string, orgId: number, data: unknown, source: TimelineSource): Promise<ApprovalView | undefined> | undefined;
}

/** The reply data of a command that waits: the message key (the console says it in its language) and the request. */
export function waitingReply(view: ApprovalView): { key: 'approval.pending'; params: { id: number }; message: string; approvalId: number } {
  return { key: 'approval.pending', params: { id: view.id }, message: formatMessage('en', 'approval.pending', { id: view.id }), approvalId: view.id };
}

/** What a requester's consoles are told when its request is decided or expires (command 196613). */
export function decidedEvent(row: ApprovalRow): ApprovalDecidedEvent {
  const contentName = row.kind === 'campaign' ? parse<{ contentName?: unknown }>(row.params, {}).contentName : undefined;
  return {
    id: row.id,
    state: row.state === 'approved' || row.state === 'rejected' ? row.state : 'expired',
    kind: row.kind as ApprovalKind,
    msgId: row.msg_id,
    targetCount: row.target_count,
    decidedBy: row.decided_by ?? 'platform',
    reason: row.reason,
    ...(typeof contentName === 'string' ? { contentName } : {}),
  };
}

/** Longest list of targets a view carries (targetCount tells the whole). */
const VIEW_TARGETS = 100;
/** How often each node looks for requests past their expiry. */
const SWEEP_MS = 60_000;

const parse = <T>(text: string | null, fallback: T): T => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/**
 * Four-eyes approval (issue 23): dangerous actions become requests; a second account holding
 * `approve_dangerous`, whose scope covers every target device's organisation (checked live, at the
 * decision), approves or rejects them; the requester never decides its own. An approved request runs as
 * its requester through the command path it came by (the executor each path registers). Each step is an
 * entry of every target device's timeline (source 'approval'); the REST decisions are in the operation log.
 */
export class ApprovalService implements ConsoleApprovals {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #timeline: TimelineWriter;
  readonly #log: { warn(obj: object, msg: string): void };
  readonly repo: ApprovalRepository;
  readonly #executors = new Map<ApprovalKind, ApprovalExecutor>();
  readonly #onEnded = new Map<ApprovalKind, (row: ApprovalRow) => Promise<void>>();
  readonly #decided: ((row: ApprovalRow) => void)[] = [];
  /** Executions under way, awaited by stop() before the database closes. */
  readonly #running = new Set<Promise<void>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(deps: { db: Db; clock: Clock; timeline: TimelineWriter; log: { warn(obj: object, msg: string): void } }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#timeline = deps.timeline;
    this.#log = deps.log;
    this.repo = new ApprovalRepository(deps.db);
  }

  /** Each command path says how its approved requests run. */
  onExecute(kind: ApprovalKind, run: ApprovalExecutor): void {
    this.#executors.set(kind, run);
  }

  /** Hears a request of `kind` rejected or expired (a held campaign is cancelled then). */
  onEnded(kind: ApprovalKind, then: (row: ApprovalRow) => Promise<void>): void {
    this.#onEnded.set(kind, then);
  }

  /** Hears every request approved, rejected or expired, once (the requester's consoles are told). */
  onDecided(listener: (row: ApprovalRow) => void): void {
    this.#decided.push(listener);
  }

  #tell(row: ApprovalRow): void {
    for (const listener of this.#decided) {
      try {
        listener(row);
      } catch (err) {
        this.#log.warn({ err, approval: row.id }, 'telling a decision failed');
      }
    }
  }

  /** Starts the expiry sweep (one timer per node; the conditional update makes each expiry happen once). */
  start(): void {
    this.#timer ??= setInterval(() => void this.expireDue().catch((err: unknown) => this.#log.warn({ err }, 'approval expiry sweep failed')), SWEEP_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.all([...this.#running]);
  }

  policy(orgId: number): Promise<ApprovalPolicy> {
    return this.repo.policy(orgId);
  }

  /** Whether a command to `count` devices needs approval under the requester's organisation's policy. */
  async commandNeedsApproval(orgId: number, msgId: number, count: number, bulk: boolean): Promise<boolean> {
    const p = await this.repo.policy(orgId);
    if (p.wipes && wipesDevice(msgId)) return true;
    return bulk && p.bulkOver > 0 && count > p.bulkOver;
  }

  intercept(caller: Caller, msgId: number, sn: string, orgId: number, data: unknown, source: TimelineSource): Promise<ApprovalView | undefined> | undefined {
    // Only wipes ever wait when sent to one device: every other command goes on without a read.
    if (!wipesDevice(msgId)) return undefined;
    return this.commandNeedsApproval(caller.orgId, msgId, 1, false).then((needed) =>
      needed ? this.request(caller, { kind: 'command', msgId, params: { data: data ?? {} }, targets: [{ sn, orgId }], source }) : undefined,
    );
  }

  /** Whether a campaign of `count` devices needs approval. */
  async campaignNeedsApproval(orgId: number, count: number): Promise<boolean> {
    const p = await this.repo.policy(orgId);
    return p.campaignOver > 0 && count > p.campaignOver;
  }

  /** Makes a pending request; every target's timeline gets an entry (result 7, awaiting approval). */
  async request(who: Requester, subject: ApprovalSubject): Promise<ApprovalView> {
    const now = this.#clock.now();
    const policy = await this.repo.policy(who.orgId);
    const row = await this.repo.insert({
      orgId: who.orgId,
      requesterId: who.accountId,
      requester: who.account,
      kind: subject.kind,
      msgId: subject.msgId,
      params: subject.params,
      targets: subject.targets.map((t) => t.sn),
      targetOrgs: subject.targets.map((t) => t.orgId),
      source: subject.source,
      campaignId: subject.campaignId ?? null,
      createdAt: now,
      expiresAt: now + policy.ttlMinutes * 60_000,
    });
    for (const t of subject.targets) {
      this.#timeline.record({ orgId: t.orgId, sn: t.sn, account: who.account, source: 'approval', msgId: subject.msgId, data: { approval: row.id, state: 'requested' }, result: Result.AwaitingApproval, reply: undefined, at: now, durationMs: 0 });
    }
    return this.view(row, undefined);
  }

  /** A request as the caller sees it (canDecide for a caller that may decide it now). */
  view(row: ApprovalRow, caller: Caller | undefined): ApprovalView {
    const targets = parse<string[]>(row.targets, []);
    const state = row.state as ApprovalState;
    const expired = state === 'pending' && Number(row.expires_at) <= this.#clock.now();
    return {
      id: row.id,
      orgId: row.org_id,
      requesterId: row.requester_id,
      requester: row.requester,
      kind: row.kind as ApprovalKind,
      msgId: row.msg_id,
      params: parse<unknown>(row.params, {}),
      targets: targets.slice(0, VIEW_TARGETS),
      targetCount: row.target_count,
      source: row.source,
      campaignId: row.campaign_id,
      state: expired ? 'expired' : state,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
      decidedBy: row.decided_by,
      decidedAt: row.decided_at === null ? null : Number(row.decided_at),
      reason: row.reason,
      outcome: parse<unknown>(row.outcome, null),
      canDecide: caller !== undefined && state === 'pending' && !expired && this.#mayDecide(caller, row, parse<number[]>(row.target_orgs, [])),
    };
  }

  #mayDecide(caller: Caller, row: ApprovalRow, orgs: readonly number[]): boolean {
    return caller.permissions.has(APPROVE_PERMISSION) && caller.accountId !== row.requester_id && caller.scope.has(row.org_id) && orgs.every((o) => caller.scope.has(o));
  }

  /** Requests the caller may decide (its organisations') and its own, newest first. */
  async list(caller: Caller, body: ApprovalListBody): Promise<Page<ApprovalView>> {
    await this.expireDue();
    const pageSize = body.pageSize ?? 10;
    const approver = caller.permissions.has(APPROVE_PERMISSION);
    const mine = body.mine === true || !approver;
    const { total, rows } = await this.repo.list({
      state: body.state,
      requesterId: mine ? caller.accountId : undefined,
      orgs: mine || caller.scopeCoversAll ? undefined : caller.scope,
      orAccount: caller.accountId,
      limit: pageSize,
      offset: ((body.pageNum ?? 1) - 1) * pageSize,
    });
    return { total, list: rows.map((r) => this.view(r, caller)) };
  }

  /** The badge: pending requests the caller may decide now, and its own pending ones. */
  async count(caller: Caller): Promise<ApprovalCount> {
    const now = this.#clock.now();
    const approver = caller.permissions.has(APPROVE_PERMISSION);
    const { others, mine } = await this.repo.pendingCounts(approver ? (caller.scopeCoversAll ? undefined : caller.scope) : new Set(), caller.accountId, now);
    const toDecide = approver ? others.filter((r) => this.#mayDecide(caller, r, parse<number[]>(r.target_orgs, []))).length : 0;
    return { toDecide, mine };
  }

  /**
   * Approves request `id` as `caller`, checked now: the key, not the requester, every target device's
   * organisation (read now) in scope, the requester still holding the command's key over them. The
   * execution runs as the requester in the background; its outcome is kept on the request.
   */
  async approve(caller: Caller, id: number, requiredKey: (row: ApprovalRow) => string | undefined): Promise<ApprovalView> {
    const row = await this.#decidable(caller, id);
    const targets = parse<string[]>(row.targets, []);
    const orgs = await this.repo.orgsOf(targets);
    // A device gone or moved out of the approver's scope: the approver cannot answer for it.
    if (targets.some((sn) => !caller.scope.has(orgs.get(sn) ?? -1))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    const requester = await loadCaller(this.#db, { tokenHash: '', accountId: row.requester_id, expiresAt: Number.MAX_SAFE_INTEGER });
    const key = requiredKey(row);
    if (!requester || (key !== undefined && !requester.permissions.has(key)) || targets.some((sn) => !requester.scope.has(orgs.get(sn) ?? -1))) {
      throw new ApiError(ApiCode.BadRequest, 'approval.requesterLostRights');
    }
    const now = this.#clock.now();
    const decided = await this.repo.decide(id, 'approved', { id: caller.accountId, name: caller.account }, now);
    if (!decided) throw new ApiError(ApiCode.BadRequest, 'approval.notPending');
    this.#toTimeline(decided, orgs, caller.account, Result.Success, { approval: id, state: 'approved', requester: decided.requester }, undefined, now);
    this.#tell(decided);
    const run = this.#executors.get(decided.kind as ApprovalKind);
    if (run) {
      const done: Promise<void> = run(decided)
        .then(
          (outcome) => this.repo.setOutcome(id, outcome),
          (err: unknown) => {
            this.#log.warn({ err, approval: id }, 'running an approved request failed');
            return this.repo.setOutcome(id, { result: Result.Fail });
          },
        )
        .catch((err: unknown) => this.#log.warn({ err, approval: id }, 'keeping an approval outcome failed'))
        .finally(() => this.#running.delete(done));
      this.#running.add(done);
    }
    return this.view(decided, caller);
  }

  /** Rejects request `id` as `caller` (same checks as approving, without the requester's). */
  async reject(caller: Caller, id: number, reason: string): Promise<ApprovalView> {
    const row = await this.#decidable(caller, id);
    const targets = parse<string[]>(row.targets, []);
    const orgs = await this.repo.orgsOf(targets);
    if (targets.some((sn) => !caller.scope.has(orgs.get(sn) ?? -1))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    const now = this.#clock.now();
    const decided = await this.repo.decide(id, 'rejected', { id: caller.accountId, name: caller.account }, now, reason);
    if (!decided) throw new ApiError(ApiCode.BadRequest, 'approval.notPending');
    this.#toTimeline(decided, orgs, caller.account, Result.Fail, { approval: id, state: 'rejected', requester: decided.requester }, reason ? `rejected: ${reason}` : 'rejected', now);
    this.#tell(decided);
    await this.#ended(decided);
    return this.view(decided, caller);
  }

  /** Expires pending requests past their time (their timelines say so); answers how many. */
  async expireDue(): Promise<number> {
    const now = this.#clock.now();
    let n = 0;
    for (const row of await this.repo.overdue(now)) {
      const decided = await this.repo.decide(row.id, 'expired', { id: null, name: 'platform' }, now);
      if (!decided) continue;
      n++;
      const targets = parse<string[]>(decided.targets, []);
      this.#toTimeline(decided, await this.repo.orgsOf(targets), 'platform', Result.Fail, { approval: row.id, state: 'expired', requester: decided.requester }, 'expired', now);
      this.#tell(decided);
      await this.#ended(decided);
    }
    return n;
  }

  /** Request `id` when the caller may decide it (the requester's own, another organisation's and a missing one refused). */
  async #decidable(caller: Caller, id: number): Promise<ApprovalRow> {
    await this.expireDue();
    const row = await this.repo.find(id);
    if (!row || !caller.scope.has(row.org_id)) throw new ApiError(ApiCode.NotFound, 'approval.gone');
    if (!caller.permissions.has(APPROVE_PERMISSION)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    if (row.requester_id === caller.accountId) throw new ApiError(ApiCode.Forbidden, 'approval.selfApproval');
    if (row.state === 'expired') throw new ApiError(ApiCode.BadRequest, 'approval.expired');
    if (row.state !== 'pending') throw new ApiError(ApiCode.BadRequest, 'approval.notPending');
    return row;
  }

  async #ended(row: ApprovalRow): Promise<void> {
    try {
      await this.#onEnded.get(row.kind as ApprovalKind)?.(row);
    } catch (err) {
      this.#log.warn({ err, approval: row.id }, 'ending a request failed');
    }
  }

  #toTimeline(row: ApprovalRow, orgs: ReadonlyMap<string, number>, account: string, result: number, data: unknown, message: string | undefined, at: number): void {
    for (const sn of parse<string[]>(row.targets, [])) {
      const orgId = orgs.get(sn);
      if (orgId === undefined) continue;
      this.#timeline.record({ orgId, sn, account, source: 'approval', msgId: row.msg_id, data, result, reply: message ? { message } : undefined, at, durationMs: 0 });
    }
  }
}
