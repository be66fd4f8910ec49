import type { ApprovalKind, ApprovalPolicy, ApprovalState } from '../../protocol/api/approvals.ts';
import type { Db } from '../db/database.ts';
import type { ApprovalRow } from './tables.ts';

/** A new request as the service makes it. */
export interface NewApproval {
  readonly orgId: number;
  readonly requesterId: number;
  readonly requester: string;
  readonly kind: ApprovalKind;
  readonly msgId: number;
  readonly params: unknown;
  readonly targets: readonly string[];
  readonly targetOrgs: readonly number[];
  readonly source: string;
  readonly campaignId: number | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface ApprovalQuery {
  readonly state?: ApprovalState;
  /** Only this account's requests. */
  readonly requesterId?: number;
  /** Requests of these organisations, or this account's own (undefined: every organisation). */
  readonly orgs?: ReadonlySet<number>;
  readonly orAccount?: number;
  readonly limit: number;
  readonly offset: number;
}

export const DEFAULT_POLICY: ApprovalPolicy = { wipes: true, bulkOver: 20, campaignOver: 100, ttlMinutes: 1440 };

/** The four-eyes requests and each organisation's thresholds (migration 0025). */
export class ApprovalRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async policy(orgId: number): Promise<ApprovalPolicy> {
    const row = await this.#db
      .selectFrom('organisations')
      .select(['approval_wipes', 'approval_bulk_over', 'approval_campaign_over', 'approval_ttl_minutes'])
      .where('id', '=', orgId)
      .executeTakeFirst();
    if (!row) return DEFAULT_POLICY;
    return { wipes: row.approval_wipes === 1, bulkOver: Number(row.approval_bulk_over), campaignOver: Number(row.approval_campaign_over), ttlMinutes: Number(row.approval_ttl_minutes) };
  }

  async setPolicy(orgId: number, p: ApprovalPolicy): Promise<void> {
    await this.#db
      .updateTable('organisations')
      .set({ approval_wipes: p.wipes ? 1 : 0, approval_bulk_over: p.bulkOver, approval_campaign_over: p.campaignOver, approval_ttl_minutes: p.ttlMinutes })
      .where('id', '=', orgId)
      .execute();
  }

  async insert(a: NewApproval): Promise<ApprovalRow> {
    return this.#db
      .insertInto('approval_requests')
      .values({
        org_id: a.orgId,
        requester_id: a.requesterId,
        requester: a.requester,
        kind: a.kind,
        msg_id: a.msgId,
        params: JSON.stringify(a.params ?? {}),
        targets: JSON.stringify(a.targets),
        target_count: a.targets.length,
        target_orgs: JSON.stringify([...new Set(a.targetOrgs)]),
        source: a.source,
        campaign_id: a.campaignId,
        state: 'pending',
        created_at: a.createdAt,
        expires_at: a.expiresAt,
        decided_by_id: null,
        decided_by: null,
        decided_at: null,
        outcome: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async find(id: number): Promise<ApprovalRow | undefined> {
    return this.#db.selectFrom('approval_requests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The pending request of a campaign, if one waits. */
  async pendingOfCampaign(campaignId: number): Promise<ApprovalRow | undefined> {
    return this.#db.selectFrom('approval_requests').selectAll().where('campaign_id', '=', campaignId).where('state', '=', 'pending').executeTakeFirst();
  }

  /**
   * Moves a pending request to `state` once (a conditional update: two approvers, or an approver and the
   * expiry sweep, cannot both win). Undefined when it was no longer pending.
   */
  async decide(id: number, state: Exclude<ApprovalState, 'pending'>, by: { id: number | null; name: string }, at: number, reason = ''): Promise<ApprovalRow | undefined> {
    const r = await this.#db
      .updateTable('approval_requests')
      .set({ state, decided_by_id: by.id, decided_by: by.name, decided_at: at, reason: reason.slice(0, 200) })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1 ? this.find(id) : undefined;
  }

  async setOutcome(id: number, outcome: unknown): Promise<void> {
    await this.#db.updateTable('approval_requests').set({ outcome: JSON.stringify(outcome ?? null) }).where('id', '=', id).execute();
  }

  /** Pending requests whose expiry has passed. */
  async overdue(now: number, limit = 500): Promise<ApprovalRow[]> {
    return this.#db.selectFrom('approval_requests').selectAll().where('state', '=', 'pending').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute();
  }

  async list(q: ApprovalQuery): Promise<{ total: number; rows: ApprovalRow[] }> {
    let base = this.#db.selectFrom('approval_requests');
    if (q.state !== undefined) base = base.where('state', '=', q.state);
    if (q.requesterId !== undefined) base = base.where('requester_id', '=', q.requesterId);
    const orgs = q.orgs;
    const orAccount = q.orAccount;
    if (orgs !== undefined) {
      base = base.where((eb) => {
        const inOrgs = orgs.size > 0 ? eb('org_id', 'in', [...orgs]) : eb('org_id', '=', -1);
        return orAccount === undefined ? eb.or([inOrgs]) : eb.or([inOrgs, eb('requester_id', '=', orAccount)]);
      });
    }
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst(),
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
    ]);
    return { total: Number(count?.n ?? 0), rows };
  }

  /** Pending requests of these organisations not made by `notBy` (a decider's candidates), and `notBy`'s own pending ones. */
  async pendingCounts(orgs: ReadonlySet<number> | undefined, accountId: number, now: number): Promise<{ others: ApprovalRow[]; mine: number }> {
    let others = this.#db.selectFrom('approval_requests').selectAll().where('state', '=', 'pending').where('expires_at', '>', now).where('requester_id', '<>', accountId);
    if (orgs !== undefined) others = others.where('org_id', 'in', orgs.size > 0 ? [...orgs] : [-1]);
    const [rows, mine] = await Promise.all([
      others.limit(1000).execute(),
      this.#db
        .selectFrom('approval_requests')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('state', '=', 'pending')
        .where('expires_at', '>', now)
        .where('requester_id', '=', accountId)
        .executeTakeFirst(),
    ]);
    return { others: rows, mine: Number(mine?.n ?? 0) };
  }

  /** The current organisation of each serial (a device may have moved since the request). */
  async orgsOf(sns: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < sns.length; i += 500) {
      const rows = await this.#db.selectFrom('devices').select(['sn', 'org_id']).where('sn', 'in', sns.slice(i, i + 500)).execute();
      for (const r of rows) out.set(r.sn, r.org_id);
    }
    return out;
  }
}
