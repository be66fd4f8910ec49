import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../../protocol/index.ts';
import type { WebhookEvent, WebhookPayload } from '../../protocol/api/integrations.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import { pathToRoot } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { type HookTarget, WebhookRepository } from './repository.ts';
import { signatureHeaders } from './signing.ts';

// Retry schedule: the n-th failed attempt waits BASE * 2^(n-1), capped, with full jitter over its upper
// half (so a receiver that comes back is not hit by every sender at once); after MAX_ATTEMPTS the delivery
// is failed and only a redelivery sends it again. 1 s doubling to a 1 h cap over 12 attempts spans about
// 1.5 hours of outage.
export const RETRY_BASE_MS = 1_000;
export const RETRY_CAP_MS = 3_600_000;
export const MAX_ATTEMPTS = 12;
/** How often the deliveries table is scanned for due ones (others' enqueues, retries, a restart's backlog). */
const POLL_MS = 500;
/** One attempt's time limit; the lease is longer, so an attempt never outlives its claim. */
const ATTEMPT_TIMEOUT_MS = 10_000;
const LEASE_MS = 30_000;
const BATCH = 20;
/** Who listens is cached this long; a hook added through another process is heard within it. */
const HOOKS_TTL_MS = 5_000;

/** Wait before the attempt after the `attempts`-th failure. */
export function retryDelay(attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export interface WebhookDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * Webhooks of this process: `emit` turns an event into persisted deliveries for the hooks of the event's
 * organisation and of the organisations above it (they reach it, as their accounts do); the dispatcher
 * sends due deliveries, signed, with retries. Pending deliveries live in the database, so they survive a
 * restart and any process of any node may send them.
 */
export class Webhooks {
  readonly #deps: WebhookDeps;
  readonly #repo: WebhookRepository;
  #hooks: HookTarget[] | undefined;
  #hooksAt = 0;
  #timer: TimerHandle | undefined;
  #running = false;
  #stopped = false;
  #again = false;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(deps: WebhookDeps) {
    this.#deps = deps;
    this.#repo = new WebhookRepository(deps.db);
  }

  get repository(): WebhookRepository {
    return this.#repo;
  }

  start(): void {
    this.#schedule(0);
  }

  /** Stops sending; waits for attempts in flight, so none is left leased by a process that is gone. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#deps.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Hooks changed here: who listens is read again at the next event. */
  hooksChanged(): void {
    this.#hooks = undefined;
  }

  /** An event of organisation `orgId`; returns once its deliveries are stored (errors are logged, never thrown). */
  emit(orgId: number, event: WebhookEvent, data: unknown): Promise<void> {
    // On hot paths (every command result): nothing is allocated while the cache says nobody listens.
    if (this.#stopped || (this.#hooks && this.#deps.clock.now() - this.#hooksAt <= HOOKS_TTL_MS && !this.#hooks.some((h) => h.events.has(event)))) return Promise.resolve();
    const work = this.#enqueue(orgId, event, data).catch((err: unknown) => this.#deps.log.warn({ err, event }, 'webhook enqueue failed'));
    this.#track(work);
    return work;
  }

  /** Sends a delivery's body again as a new delivery (same event id), at once. */
  async redeliver(webhookId: number, orgId: number, event: string, body: string): Promise<void> {
    await this.#repo.enqueue([{ webhookId, orgId, event, body }], this.#deps.clock.now());
    this.#kick();
  }

  async #enqueue(orgId: number, event: WebhookEvent, data: unknown): Promise<void> {
    if (this.#stopped) return;
    const hooks = await this.#listeners();
    const listening = hooks.filter((h) => h.events.has(event));
    if (listening.length === 0) return;
    const tree = await currentOrgTree(this.#deps.db);
    const path = new Set(pathToRoot(tree.tree, orgId));
    const targets = listening.filter((h) => path.has(h.orgId));
    if (targets.length === 0) return;
    const now = this.#deps.clock.now();
    const payload: WebhookPayload = { id: randomUUID(), event, time: now, orgId, data };
    const body = JSON.stringify(payload);
    await this.#repo.enqueue(targets.map((h) => ({ webhookId: h.id, orgId: h.orgId, event, body })), now);
    this.#kick();
  }

  async #listeners(): Promise<HookTarget[]> {
    const now = this.#deps.clock.now();
    if (!this.#hooks || now - this.#hooksAt > HOOKS_TTL_MS) {
      this.#hooks = await this.#repo.all();
      this.#hooksAt = now;
    }
    return this.#hooks;
  }

  #track(p: Promise<unknown>): void {
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) this.#deps.clock.clearTimeout(this.#timer);
    this.#timer = this.#deps.clock.setTimeout(() => {
      this.#timer = undefined;
      const round = this.#round();
      this.#track(round);
    }, ms);
  }

  async #round(): Promise<void> {
    this.#running = true;
    try {
      for (;;) {
        this.#again = false;
        const claimed = await this.#repo.claimDue(this.#deps.clock.now(), LEASE_MS, BATCH);
        await Promise.all(claimed.map((d) => this.#attempt(d)));
        if (this.#stopped || (claimed.length < BATCH && !this.#again)) break;
      }
    } catch (err) {
      this.#deps.log.warn({ err }, 'webhook dispatch failed');
    } finally {
      this.#running = false;
      this.#schedule(POLL_MS);
    }
  }

  async #attempt(d: { id: number; url: string; secret: string; body: string; attempts: number }): Promise<void> {
    const started = performance.now();
    const sentAt = this.#deps.clock.now();
    let statusCode: number | null = null;
    let error = '';
    try {
      const res = await fetch(d.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'device-control-center-webhook', ...signatureHeaders(d.secret, d.body, Math.floor(sentAt / 1000)) },
        body: d.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      statusCode = res.status;
      // The answer's body is not kept; read it so the connection is freed.
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) error = `HTTP ${res.status}`;
    } catch (err) {
      const cause = (err as { cause?: { code?: unknown } }).cause;
      error = typeof cause?.code === 'string' ? cause.code : err instanceof Error ? err.name : 'error';
    }
    const latencyMs = Math.round(performance.now() - started);
    const attempts = d.attempts + 1;
    const now = this.#deps.clock.now();
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const status = delivered ? 'delivered' : attempts >= MAX_ATTEMPTS ? 'failed' : 'pending';
    await this.#repo.attempted(d.id, { status, attempts, statusCode, latencyMs, error, nextAttemptAt: status === 'pending' ? now + retryDelay(attempts) : now, now });
  }
}
