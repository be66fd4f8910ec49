import type { WebhookDeliveryStatus, WebhookDeliveryView, WebhookEvent, WebhookView } from '../../protocol/api/integrations.ts';
import { isWebhookEvent } from '../../protocol/api/integrations.ts';
import type { Db } from '../db/database.ts';
import { orgIdIn } from '../accounts/org-scope.ts';

export interface HookTarget {
  readonly id: number;
  readonly orgId: number;
  readonly events: ReadonlySet<string>;
}

/** A delivery taken for one attempt. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly url: string;
  readonly secret: string;
  readonly body: string;
  readonly attempts: number;
}

function events(text: string): WebhookEvent[] {
  return text.split(',').filter(isWebhookEvent);
}

/** Webhooks and their deliveries: every statement of the webhooks area. */
export class WebhookRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async add(orgId: number, accountId: number, url: string, secret: string, evts: readonly WebhookEvent[], now: number): Promise<number> {
    const row = await this.#db
      .insertInto('webhooks')
      .values({ org_id: orgId, account_id: accountId, url, secret, events: evts.join(','), created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Hooks of the given organisations (the caller's scope). */
  async list(scope: Iterable<number>): Promise<WebhookView[]> {
    const rows = await this.#db.selectFrom('webhooks').select(['id', 'org_id', 'url', 'events', 'created_at']).where(orgIdIn(this.#db, 'org_id', scope)).orderBy('id', 'desc').execute();
    return rows.map((r) => ({ id: r.id, orgId: r.org_id, url: r.url, events: events(r.events), createdAt: r.created_at }));
  }

  async orgOf(id: number): Promise<number | undefined> {
    const row = await this.#db.selectFrom('webhooks').select('org_id').where('id', '=', id).executeTakeFirst();
    return row?.org_id;
  }

  async remove(id: number): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await tx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      await tx.deleteFrom('webhooks').where('id', '=', id).execute();
    });
  }

  /** Every hook (id, organisation, events): the dispatcher's cache of who listens. */
  async all(): Promise<HookTarget[]> {
    const rows = await this.#db.selectFrom('webhooks').select(['id', 'org_id', 'events']).execute();
    return rows.map((r) => ({ id: r.id, orgId: r.org_id, events: new Set(events(r.events)) }));
  }

  async enqueue(rows: readonly { webhookId: number; orgId: number; event: string; body: string }[], now: number): Promise<void> {
    if (rows.length === 0) return;
    await this.#db
      .insertInto('webhook_deliveries')
      .values(rows.map((r) => ({ webhook_id: r.webhookId, org_id: r.orgId, event: r.event, body: r.body, status: 'pending', next_attempt_at: now, created_at: now })))
      .execute();
  }

  /** Deliveries of hooks in `scope`, newest first; of one hook when `webhookId` is given. */
  async deliveries(scope: Iterable<number>, webhookId: number | undefined, limit: number): Promise<WebhookDeliveryView[]> {
    let q = this.#db.selectFrom('webhook_deliveries').selectAll().where(orgIdIn(this.#db, 'org_id', scope));
    if (webhookId !== undefined) q = q.where('webhook_id', '=', webhookId);
    const rows = await q.orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({
      id: r.id,
      webhookId: r.webhook_id,
      event: r.event,
      status: r.status as WebhookDeliveryStatus,
      attempts: r.attempts,
      statusCode: r.last_status_code,
      latencyMs: r.last_latency_ms,
      error: r.last_error,
      createdAt: r.created_at,
      nextAttemptAt: r.next_attempt_at,
      finishedAt: r.finished_at,
      body: r.body,
    }));
  }

  async deliveryOrg(id: number): Promise<{ orgId: number; webhookId: number; event: string; body: string } | undefined> {
    const row = await this.#db.selectFrom('webhook_deliveries').select(['org_id', 'webhook_id', 'event', 'body']).where('id', '=', id).executeTakeFirst();
    return row && { orgId: row.org_id, webhookId: row.webhook_id, event: row.event, body: row.body };
  }

  /**
   * Takes up to `limit` due deliveries for one attempt each: a delivery is taken by moving its next attempt
   * `leaseMs` ahead with a conditional update, so two processes (workers, nodes) never send the same one
   * at once, and one that dies mid-attempt leaves it to be taken again when the lease runs out.
   */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const due = await this.#db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id')
      .select(['webhook_deliveries.id', 'webhook_deliveries.next_attempt_at', 'webhook_deliveries.attempts', 'webhook_deliveries.body', 'webhooks.url', 'webhooks.secret'])
      .where('webhook_deliveries.status', '=', 'pending')
      .where('webhook_deliveries.next_attempt_at', '<=', now)
      .orderBy('webhook_deliveries.next_attempt_at')
      .limit(limit)
      .execute();
    const claimed: ClaimedDelivery[] = [];
    for (const d of due) {
      const res = await this.#db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now + leaseMs })
        .where('id', '=', d.id)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '=', d.next_attempt_at)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) claimed.push({ id: d.id, url: d.url, secret: d.secret, body: d.body, attempts: d.attempts });
    }
    return claimed;
  }

  /** Records one attempt's outcome. */
  async attempted(id: number, outcome: { status: WebhookDeliveryStatus; attempts: number; statusCode: number | null; latencyMs: number; error: string; nextAttemptAt: number; now: number }): Promise<void> {
    await this.#db
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        attempts: outcome.attempts,
        last_status_code: outcome.statusCode,
        last_latency_ms: outcome.latencyMs,
        last_error: outcome.error.slice(0, 500),
        next_attempt_at: outcome.nextAttemptAt,
        finished_at: outcome.status === 'pending' ? null : outcome.now,
      })
      .where('id', '=', id)
      .execute();
  }
}
