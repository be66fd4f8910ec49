import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/database.ts';
import { CastWriter } from './asciicast.ts';
import { RECORDING_POLICIES, type RecordingPolicy } from './tables.ts';

interface Open {
  readonly id: string;
  readonly writer: CastWriter;
  /** Who opened it (a console link): its recordings end when it goes. */
  readonly owner: object;
}

/** What opening a shell gets: a recording id, none (policy off), or a refusal (required, and it could not start). */
export type RecordingStart = { readonly id: string | null } | { readonly refused: true };

/**
 * Shell sessions recorded as asciicast v2 while they run, per organisation policy (issue 22): the console
 * endpoint starts one when a shell opens and tells it the console's input and resizes, the flow table
 * tells it the device's output, and it ends when the terminal ends, the console closes it, or the
 * console's socket goes. Files are DATA_DIR/recordings/<id>.cast; rows in `recordings`.
 */
export class ShellRecordings {
  readonly #db: Db;
  readonly #dir: string;
  readonly #now: () => number;
  readonly #log: { warn(obj: object, msg: string): void };
  readonly #open = new Map<string, Open>();
  /** Ends under way (a console that went away does not wait for them; close() does). */
  readonly #ending = new Set<Promise<void>>();
  readonly #retentionMs: number;
  #sweepTimer: ReturnType<typeof setInterval> | undefined;

  /** `retentionMs` > 0: ended recordings older than that are deleted, at start and then every hour. */
  constructor(db: Db, dir: string, now: () => number, log: { warn(obj: object, msg: string): void }, retentionMs = 0) {
    this.#db = db;
    this.#dir = dir;
    this.#now = now;
    this.#log = log;
    this.#retentionMs = retentionMs;
    if (retentionMs > 0) {
      const sweep = () => void this.sweep().catch((err: unknown) => this.#log.warn({ err }, 'sweeping old recordings failed'));
      // Real time: housekeeping, not protocol timing. Every node sweeps; deleting twice is harmless.
      this.#sweepTimer = setInterval(sweep, 3_600_000);
      this.#sweepTimer.unref();
      sweep();
    }
  }

  /** Deletes the ended recordings (rows and files) that started before the retention period; returns how many. */
  async sweep(): Promise<number> {
    if (this.#retentionMs <= 0) return 0;
    const old = await this.#db.deleteFrom('recordings').where('started_at', '<', this.#now() - this.#retentionMs).where('ended_at', 'is not', null).returning('id').execute();
    for (const { id } of old) await fs.promises.rm(this.fileOf(id), { force: true });
    return old.length;
  }

  /** The file of recording `id` (ids are ours: random UUIDs). */
  fileOf(id: string): string {
    return path.join(this.#dir, `${id}.cast`);
  }

  async policyOf(orgId: number): Promise<RecordingPolicy> {
    const row = await this.#db.selectFrom('organisations').select('recording_policy').where('id', '=', orgId).executeTakeFirst();
    const p = row?.recording_policy as RecordingPolicy | undefined;
    return p && RECORDING_POLICIES.includes(p) ? p : 'off';
  }

  /** A shell opens on flow `flowId` of device `sn`: recorded when its organisation's policy says so. */
  async begin(o: { orgId: number; sn: string; account: string; flowId: string; cols?: number; rows?: number; owner: object }): Promise<RecordingStart> {
    const key = keyOf(o.sn, o.flowId);
    const known = this.#open.get(key);
    if (known) return { id: known.id };
    const policy = await this.policyOf(o.orgId);
    if (policy === 'off') return { id: null };
    const id = randomUUID();
    const startedAt = this.#now();
    try {
      const writer = new CastWriter(this.fileOf(id), { width: o.cols ?? 80, height: o.rows ?? 24, startedAt, title: o.sn }, this.#now);
      await this.#db.insertInto('recordings').values({ id, org_id: o.orgId, sn: o.sn, account: o.account, kind: 'shell', started_at: startedAt, ended_at: null, bytes: 0 }).execute();
      this.#open.set(key, { id, writer, owner: o.owner });
      return { id };
    } catch (err) {
      this.#log.warn({ err, sn: o.sn }, 'starting a shell recording failed');
      return policy === 'required' ? { refused: true } : { id: null };
    }
  }

  output(sn: string, flowId: string, data: string): void {
    this.#open.get(keyOf(sn, flowId))?.writer.output(data);
  }

  input(sn: string, flowId: string, data: string): void {
    this.#open.get(keyOf(sn, flowId))?.writer.input(data);
  }

  resize(sn: string, flowId: string, cols: number, rows: number): void {
    this.#open.get(keyOf(sn, flowId))?.writer.resize(cols, rows);
  }

  /** Ends the recording of one flow (its row gets its end and size). */
  end(sn: string, flowId: string): Promise<void> {
    const key = keyOf(sn, flowId);
    const open = this.#open.get(key);
    if (!open) return Promise.resolve();
    this.#open.delete(key);
    const ending = this.#finish(open);
    this.#ending.add(ending);
    void ending.finally(() => this.#ending.delete(ending));
    return ending;
  }

  async #finish(open: Open): Promise<void> {
    await open.writer.close().catch((err: unknown) => this.#log.warn({ err, id: open.id }, 'closing a shell recording failed'));
    await this.#db
      .updateTable('recordings')
      .set({ ended_at: this.#now(), bytes: open.writer.bytes })
      .where('id', '=', open.id)
      .execute()
      .catch((err: unknown) => this.#log.warn({ err, id: open.id }, 'ending a shell recording failed'));
  }

  /** Ends every recording `owner` (a console that went away) started. */
  endOwner(owner: object): void {
    for (const [key, open] of [...this.#open]) {
      if (open.owner !== owner) continue;
      const [sn = '', flowId = ''] = key.split('\u0000');
      void this.end(sn, flowId);
    }
  }

  /** Ends them all (the gateway closes). */
  async close(): Promise<void> {
    if (this.#sweepTimer !== undefined) clearInterval(this.#sweepTimer);
    for (const key of [...this.#open.keys()]) {
      const [sn = '', flowId = ''] = key.split('\u0000');
      void this.end(sn, flowId);
    }
    await Promise.all([...this.#ending]);
  }
}

const keyOf = (sn: string, flowId: string) => `${sn}\u0000${flowId}`;
