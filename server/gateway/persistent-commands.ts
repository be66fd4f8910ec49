import type { TimelineSource } from '../../protocol/api/timeline.ts';
import { randomUUID } from 'node:crypto';
import { type Clock, type Envelope, Result, type TimerHandle } from '../../protocol/index.ts';
import { type Caller, loadCaller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import { commandPermissions } from './command-permissions.ts';
import type { DeviceOperationRow } from './device-operation-tables.ts';
import type { Gateway } from './gateway.ts';
import { Subject } from '../bus/subjects.ts';
import { MAX_HOLD_SECONDS } from '../../protocol/api/device-ops.ts';
import { emitWebhook } from '../webhooks/emit.ts';

/** Longest time a command may wait for its device (the contract's MAX_HOLD_SECONDS). */
export const MAX_TTL_MS = MAX_HOLD_SECONDS * 1000;

/**
 * Every node re-reads the earliest waiting expiry from the database at least this often, so a command
 * stored through a node that has died since is still announced expired within this bound (DOPS-6).
 * It also keeps each timer far below the 24.8-day ceiling of a JavaScript timer.
 */
export const EXPIRY_RECHECK_MS = 60_000;

/** A device's commands still waiting, oldest first: read at every login of every device. */
const waitingOf = prepared((db, sn: string) => db.selectFrom('device_operations').selectAll().where('sn', '=', sn).where('state', '=', 'waiting').orderBy('id'));

/** A row with its numbers as numbers: PostgreSQL hands bigint columns back as strings. */
function plainRow(row: DeviceOperationRow): DeviceOperationRow {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return { ...row, id: Number(row.id), org_id: Number(row.org_id), msg_id: Number(row.msg_id), result: n(row.result), account_id: n(row.account_id), created_at: Number(row.created_at), expires_at: Number(row.expires_at), delivered_at: n(row.delivered_at), finished_at: n(row.finished_at) };
}

export interface HoldRequest {
  readonly sn: string;
  readonly orgId: number;
  readonly msgId: number;
  readonly data: unknown;
  readonly ttlMs: number;
  readonly accountId: number | null;
  /** The submitter's account name and route, for the device's timeline of the attempt made now. */
  readonly by?: string;
  readonly source?: TimelineSource;
}

/** What a caller learns at once: the device's reply, or that the command is held for it. */
export type SubmitOutcome = { readonly delivered: true; readonly reply: Envelope } | { readonly delivered: false; readonly held: DeviceOperationRow };

/**
 * Commands that wait for an offline device (issue 5). A command is sent now when the device is online;
 * otherwise it is stored and sent when the device next logs in, on whichever node holds it. A row is
 * claimed with a conditional update before sending, so across nodes and repeated logins it is sent at
 * most once; if the device drops before answering, the row records result 5 and is not sent again, since
 * the device may already have acted on it.
 *
 * Expiry is swept on the injected clock, not only when someone looks: a timer for the earliest waiting
 * expiry this node knows of (its own submissions, and the database's earliest, re-read at least every
 * {@link EXPIRY_RECHECK_MS}). The sweep's conditional update makes each expiry announced once across nodes,
 * and every end (answered or expired) reaches the consoles of every node over the bus.
 */
export class PersistentCommands {
  readonly #db: Db;
  readonly #gateway: Gateway;
  readonly #clock: Clock;
  readonly #log: { warn(obj: object, msg: string): void };
  /** Deliveries in progress per device, so two logins in quick succession do not race each other. */
  readonly #delivering = new Map<string, Promise<void>>();
  readonly #listeners: ((row: DeviceOperationRow) => void)[] = [];
  /** Tells this node's bus messages from the others' (NATS echoes a node's own messages). */
  readonly #node = randomUUID();
  readonly #unsubscribe: () => void;
  #sweepTimer: TimerHandle | undefined;
  /** When the armed sweep fires. */
  #sweepAt = Infinity;
  #sweeping: Promise<void> | undefined;
  #stopped = false;

  constructor(db: Db, gateway: Gateway, clock: Clock, log: { warn(obj: object, msg: string): void }) {
    this.#db = db;
    this.#gateway = gateway;
    this.#clock = clock;
    this.#log = log;
    gateway.onDeviceOnline((sn) => void this.deliver(sn));
    gateway.onDevicesMoved((sns, orgId) => this.cancelMoved(sns, orgId));
    this.#unsubscribe = gateway.bus.subscribe(Subject.heldFinished, (m) => {
      if (m.node !== this.#node) this.#tell(m.row);
    });
    // The first sweep reads the earliest expiry stored before this node started (and expires what is overdue).
    this.#arm(clock.now());
  }

  /** Stops the expiry sweep and bus subscription; waits for a sweep under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#sweepTimer !== undefined) this.#clock.clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    this.#unsubscribe();
    await this.#sweeping;
  }

  /** Hears every held command that reaches its end (answered or expired). */
  onFinished(listener: (row: DeviceOperationRow) => void): void {
    this.#listeners.push(listener);
  }

  /** Sends now, or holds the command when the device is offline (result 5). */
  async submit(req: HoldRequest): Promise<SubmitOutcome> {
    const reply = await this.#gateway.command(req.sn, req.msgId, req.data, { by: req.by, source: req.source });
    if (reply.result !== Result.DeviceOffline) {
      emitWebhook(this.#db, req.orgId, 'command.result', { sn: req.sn, msgId: req.msgId, result: reply.result ?? null });
      return { delivered: true, reply };
    }
    const now = this.#clock.now();
    const held = await this.#db
      .insertInto('device_operations')
      .values({
        sn: req.sn,
        org_id: req.orgId,
        msg_id: req.msgId,
        data: JSON.stringify(req.data ?? null),
        state: 'waiting',
        result: null,
        reply: null,
        account_id: req.accountId,
        created_at: now,
        expires_at: now + Math.min(Math.max(1, req.ttlMs), MAX_TTL_MS),
        delivered_at: null,
        finished_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // The device may have logged in between the offline answer and the insert; its login's delivery
    // pass ran before the row existed, so look again.
    const device = await this.#db.selectFrom('devices').select('online_state').where('sn', '=', req.sn).executeTakeFirst();
    if (device?.online_state === 1) void this.deliver(req.sn);
    this.#arm(Number(held.expires_at));
    return { delivered: false, held };
  }

  /** Sends every held command of a device that just logged in, oldest first. */
  deliver(sn: string): Promise<void> {
    const previous = this.#delivering.get(sn) ?? Promise.resolve();
    const run = previous.then(() => this.#deliverNow(sn)).catch((err: unknown) => this.#log.warn({ err, sn }, 'delivering held commands failed'));
    this.#delivering.set(sn, run);
    void run.then(() => {
      if (this.#delivering.get(sn) === run) this.#delivering.delete(sn);
    });
    return run;
  }

  async #deliverNow(sn: string): Promise<void> {
    // A read first, and a write only for this device's own overdue commands: nearly every login finds
    // nothing held, and a storm of logins must not take the database's write lock once each (the sweep of
    // every organisation's overdue commands that ran here was 50-70 us per login in each worker and
    // queued behind the login writer's commits). What is overdue elsewhere is the sweep's (#arm); an
    // overdue command is never sent either way, as the claim below checks the time-to-live again.
    const waiting = (await waitingOf(this.#db, sn)).rows;
    if (waiting.length === 0) return;
    const now = this.#clock.now();
    await this.#end(waiting.filter((row) => Number(row.expires_at) <= now).map((row) => row.id), 'expired');
    const rows = waiting.filter((row) => Number(row.expires_at) > now);
    const device = rows.length > 0 ? await this.#db.selectFrom('devices').select('org_id').where('sn', '=', sn).executeTakeFirst() : undefined;
    const submitters = new Map<number, Promise<Caller | undefined>>();
    for (const row of rows) {
      // A command of an organisation that no longer holds the device, or whose submitter has since lost
      // the command's key or the device's organisation, is cancelled, never sent.
      if (!(await this.#mayDeliver(row, device?.org_id, submitters))) {
        await this.#end([row.id], 'cancelled');
        continue;
      }
      const now = this.#clock.now();
      const claimed = await this.#db
        .updateTable('device_operations')
        .set({ state: 'delivering', delivered_at: now })
        .where('id', '=', row.id)
        .where('state', '=', 'waiting')
        .where('expires_at', '>', now)
        // Still the device's organisation as the claim is made (a move meanwhile cancels the row).
        .where((eb) => eb.exists(eb.selectFrom('devices').select('devices.sn').where('devices.sn', '=', sn).where('devices.org_id', '=', row.org_id)))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) continue; // another node or login took it, or it expired
      // On the timeline as its submitter's, delivered by the held route.
      const by = row.account_id === null ? 'platform' : ((await submitters.get(Number(row.account_id)))?.account ?? 'platform');
      const reply = await this.#gateway.command(sn, row.msg_id, JSON.parse(row.data) as unknown, { by, source: 'held' });
      const done = { state: 'done' as const, result: reply.result ?? Result.Fail, reply: JSON.stringify(reply.data ?? null), finished_at: this.#clock.now() };
      await this.#db.updateTable('device_operations').set(done).where('id', '=', row.id).execute();
      this.#emit({ ...row, ...done, delivered_at: now });
      // A held command's outcome, once: only the process whose claim above took the row gets here.
      if (reply.result !== Result.DeviceOffline) emitWebhook(this.#db, Number(row.org_id), 'command.result', { sn, msgId: row.msg_id, result: done.result, held: true });
      if (reply.result === Result.DeviceOffline) return; // gone again: the rest wait for the next login
    }
  }

  /**
   * Devices moved to organisation `orgId`: their commands still waiting under another organisation are
   * cancelled and announced (state 'cancelled'), so none reaches the device in its new organisation and
   * the old one hears how its commands ended.
   */
  async cancelMoved(sns: readonly string[], orgId: number): Promise<void> {
    if (sns.length === 0) return;
    const rows = await this.#db.selectFrom('device_operations').select('id').where('sn', 'in', [...sns]).where('state', '=', 'waiting').where('org_id', '!=', orgId).execute();
    await this.#end(rows.map((r) => r.id), 'cancelled');
  }

  /** True when `row` may still go to its device: the device's organisation, and a submitter who still reaches it. */
  async #mayDeliver(row: DeviceOperationRow, deviceOrg: number | undefined, submitters: Map<number, Promise<Caller | undefined>>): Promise<boolean> {
    if (deviceOrg === undefined || Number(row.org_id) !== Number(deviceOrg)) return false;
    // Without an account, the platform's own command (none is stored so today): the organisation decides.
    if (row.account_id === null) return true;
    const accountId = Number(row.account_id);
    let loading = submitters.get(accountId);
    if (!loading) {
      // The account's rights as they are now, whatever became of the session that submitted: a held
      // command outlives its session, not its submitter's key or reach.
      loading = loadCaller(this.#db, { tokenHash: '', accountId, expiresAt: Number.MAX_SAFE_INTEGER });
      submitters.set(accountId, loading);
    }
    const submitter = await loading;
    const permission = commandPermissions.get(row.msg_id);
    return submitter !== undefined && permission !== undefined && submitter.permissions.has(permission) && submitter.scope.has(Number(row.org_id));
  }

  /** Ends the rows of `ids` still waiting as `state` (one delivering or ended is left alone), and announces each. */
  async #end(ids: readonly number[], state: 'cancelled' | 'expired'): Promise<void> {
    if (ids.length === 0) return;
    const ended = await this.#db
      .updateTable('device_operations')
      .set({ state, finished_at: this.#clock.now() })
      .where('id', 'in', [...ids])
      .where('state', '=', 'waiting')
      .returningAll()
      .execute();
    for (const row of ended) this.#emit(row);
  }

  /** Marks held commands whose time-to-live has passed. */
  async expire(): Promise<number> {
    const now = this.#clock.now();
    const expired = await this.#db
      .updateTable('device_operations')
      .set({ state: 'expired', finished_at: now })
      .where('state', '=', 'waiting')
      .where('expires_at', '<=', now)
      .returningAll()
      .execute();
    for (const row of expired) this.#emit(row);
    return expired.length;
  }

  /** Held commands of one device, newest first. */
  async list(sn: string, limit = 100, orgs?: ReadonlySet<number>): Promise<DeviceOperationRow[]> {
    await this.expire();
    let query = this.#db.selectFrom('device_operations').selectAll().where('sn', '=', sn);
    // Only the commands of these organisations (the caller's scope): another organisation's stay its own.
    if (orgs) query = query.where('org_id', 'in', [...orgs]);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Arms the sweep for `at`, unless one is armed sooner; never later than the recheck period. */
  #arm(at: number): void {
    if (this.#stopped) return;
    const now = this.#clock.now();
    const when = Math.min(at, now + EXPIRY_RECHECK_MS);
    if (this.#sweepTimer !== undefined && this.#sweepAt <= when) return;
    if (this.#sweepTimer !== undefined) this.#clock.clearTimeout(this.#sweepTimer);
    this.#sweepAt = when;
    this.#sweepTimer = this.#clock.setTimeout(() => {
      this.#sweepTimer = undefined;
      this.#sweepAt = Infinity;
      this.#sweep();
    }, Math.max(0, when - now));
  }

  /** Expires what is due, then arms the next sweep at the earliest expiry still waiting. */
  #sweep(): void {
    if (this.#sweeping) {
      // One at a time: the running sweep re-arms when it ends.
      return;
    }
    this.#sweeping = (async () => {
      let next = Infinity;
      try {
        await this.expire();
        const row = await this.#db.selectFrom('device_operations').select((eb) => eb.fn.min('expires_at').as('at')).where('state', '=', 'waiting').executeTakeFirst();
        if (row?.at !== null && row?.at !== undefined) next = Number(row.at);
      } catch (err) {
        this.#log.warn({ err }, 'held command expiry sweep failed');
      } finally {
        this.#sweeping = undefined;
        // A timer that fires a moment early finds nothing due yet and is armed again for the same time.
        this.#arm(next);
      }
    })();
  }

  #emit(row: DeviceOperationRow): void {
    const plain = plainRow(row);
    if (this.#gateway.bus.shared) this.#gateway.bus.publish(Subject.heldFinished, { node: this.#node, row: { ...plain } });
    this.#tell(plain);
  }

  #tell(row: DeviceOperationRow): void {
    for (const listener of this.#listeners) listener(row);
  }
}
