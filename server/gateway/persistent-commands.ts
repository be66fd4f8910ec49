import { type Clock, type Envelope, Result } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { DeviceOperationRow } from './device-operation-tables.ts';
import type { Gateway } from './gateway.ts';

/** Longest time a command may wait for its device. */
export const MAX_TTL_MS = 30 * 86_400_000;

export interface HoldRequest {
  readonly sn: string;
  readonly orgId: number;
  readonly msgId: number;
  readonly data: unknown;
  readonly ttlMs: number;
  readonly accountId: number | null;
}

/** What a caller learns at once: the device's reply, or that the command is held for it. */
export type SubmitOutcome = { readonly delivered: true; readonly reply: Envelope } | { readonly delivered: false; readonly held: DeviceOperationRow };

/**
 * Commands that wait for an offline device (issue 5). A command is sent now when the device is online;
 * otherwise it is stored and sent when the device next logs in, on whichever node holds it. A row is
 * claimed with a conditional update before sending, so across nodes and repeated logins it is sent at
 * most once; if the device drops before answering, the row records result 5 and is not sent again, since
 * the device may already have acted on it.
 */
export class PersistentCommands {
  readonly #db: Db;
  readonly #gateway: Gateway;
  readonly #clock: Clock;
  readonly #log: { warn(obj: object, msg: string): void };
  /** Deliveries in progress per device, so two logins in quick succession do not race each other. */
  readonly #delivering = new Map<string, Promise<void>>();
  readonly #listeners: ((row: DeviceOperationRow) => void)[] = [];

  constructor(db: Db, gateway: Gateway, clock: Clock, log: { warn(obj: object, msg: string): void }) {
    this.#db = db;
    this.#gateway = gateway;
    this.#clock = clock;
    this.#log = log;
    gateway.onDeviceOnline((sn) => void this.deliver(sn));
  }

  /** Hears every held command that reaches its end (answered or expired). */
  onFinished(listener: (row: DeviceOperationRow) => void): void {
    this.#listeners.push(listener);
  }

  /** Sends now, or holds the command when the device is offline (result 5). */
  async submit(req: HoldRequest): Promise<SubmitOutcome> {
    const reply = await this.#gateway.command(req.sn, req.msgId, req.data);
    if (reply.result !== Result.DeviceOffline) return { delivered: true, reply };
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
    await this.expire();
    const rows = await this.#db.selectFrom('device_operations').selectAll().where('sn', '=', sn).where('state', '=', 'waiting').orderBy('id').execute();
    for (const row of rows) {
      const now = this.#clock.now();
      const claimed = await this.#db
        .updateTable('device_operations')
        .set({ state: 'delivering', delivered_at: now })
        .where('id', '=', row.id)
        .where('state', '=', 'waiting')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) continue; // another node or login took it, or it expired
      const reply = await this.#gateway.command(sn, row.msg_id, JSON.parse(row.data) as unknown);
      const done = { state: 'done' as const, result: reply.result ?? Result.Fail, reply: JSON.stringify(reply.data ?? null), finished_at: this.#clock.now() };
      await this.#db.updateTable('device_operations').set(done).where('id', '=', row.id).execute();
      this.#emit({ ...row, ...done, delivered_at: now });
      if (reply.result === Result.DeviceOffline) return; // gone again: the rest wait for the next login
    }
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
  async list(sn: string, limit = 100): Promise<DeviceOperationRow[]> {
    await this.expire();
    return this.#db.selectFrom('device_operations').selectAll().where('sn', '=', sn).orderBy('id', 'desc').limit(limit).execute();
  }

  #emit(row: DeviceOperationRow): void {
    for (const listener of this.#listeners) listener(row);
  }
}
