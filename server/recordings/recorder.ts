import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/database.ts';
import type { StartStreamReply } from '../../protocol/index.ts';
import { CastWriter } from './asciicast.ts';
import { LiveFileWriter } from './live-file.ts';
import { exportLiveMp4 } from './mp4-export.ts';
import { RECORDING_POLICIES, type RecordingPolicy } from './tables.ts';

interface Open {
  readonly id: string;
  readonly writer: CastWriter;
  /** Who opened it (a console link): its recordings end when it goes. */
  readonly owner: object;
}

/** What opening a shell gets: a recording id, none (policy off), or a refusal (required, and it could not start). */
export type RecordingStart = { readonly id: string | null } | { readonly refused: true };

/** A live-view session being recorded: the fan-out hands it every frame of the stream, then ends it. */
export interface LiveRecording {
  readonly id: string;
  frame(frame: Uint8Array): void;
  end(): Promise<void>;
}

/** What starting to watch gets: a recording, none (policy off), or a refusal (required, and it could not start). */
export type LiveRecordingStart = { readonly recording: LiveRecording | null } | { readonly refused: true };

/** File name endings by kind: the shell's asciicast, the live view's frames, and its exported MP4. */
const EXTENSIONS = { shell: '.cast', live: '.live', mp4: '.mp4' } as const;

/**
 * Sessions recorded while they run, per organisation policy (issue 22).
 *
 * Shell: asciicast v2. The console endpoint starts one when a shell opens and tells it the console's input
 * and resizes, the flow table tells it the device's output, and it ends when the terminal ends, the
 * console closes it, or the console's socket goes. Files are DATA_DIR/recordings/<id>.cast.
 *
 * Live view: the stream fan-out starts one when a console starts watching a stream and hands it every
 * frame of that stream (as received from the device, whatever that console's own socket drops), until the
 * console stops watching or the stream ends. Files are DATA_DIR/recordings/<id>.live (live-file.ts), exported
 * as <id>.mp4 on download (mp4-export.ts). Rows of both in `recordings` (kind 'shell' or 'live').
 */
export class Recordings {
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
    if (old.length > 0) await this.#db.deleteFrom('recording_views').where('recording_id', 'in', old.map((r) => r.id)).execute();
    for (const { id } of old) for (const ext of Object.values(EXTENSIONS)) await fs.promises.rm(path.join(this.#dir, `${id}${ext}`), { force: true });
    return old.length;
  }

  /** The file of recording `id` of a kind (ids are ours: random UUIDs). */
  fileOf(id: string, kind: keyof typeof EXTENSIONS = 'shell'): string {
    return path.join(this.#dir, `${id}${EXTENSIONS[kind]}`);
  }

  /** Exports under way, by recording: two downloads of one recording share one export. */
  readonly #exports = new Map<string, Promise<string>>();

  /**
   * The MP4 of live recording `id`: exported once the recording has ended (and kept beside it); a
   * recording still running is exported as far as it goes, each time, and that file is the caller's to
   * delete (`temporary`).
   */
  async mp4Of(id: string, ended: boolean): Promise<{ file: string; temporary: boolean }> {
    const out = this.fileOf(id, 'mp4');
    if (!ended) {
      const file = `${out}.${randomUUID()}.partial`;
      await exportLiveMp4(this.fileOf(id, 'live'), file);
      return { file, temporary: true };
    }
    if (fs.existsSync(out)) return { file: out, temporary: false };
    let running = this.#exports.get(id);
    if (!running) {
      running = exportLiveMp4(this.fileOf(id, 'live'), out).then(() => out);
      this.#exports.set(id, running);
      void running.finally(() => this.#exports.delete(id)).catch(() => undefined);
    }
    return { file: await running, temporary: false };
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

  /**
   * A console starts watching a live stream of device `sn`: recorded when its organisation's policy says
   * so. The stream's reply gives the picture's size and rate and whether it carries voice.
   */
  async beginLive(o: { orgId: number; sn: string; account: string; stream: StartStreamReply }): Promise<LiveRecordingStart> {
    const policy = await this.policyOf(o.orgId);
    if (policy === 'off') return { recording: null };
    const id = randomUUID();
    const startedAt = this.#now();
    try {
      const { width, height, fps, audio } = o.stream;
      const writer = new LiveFileWriter(this.fileOf(id, 'live'), { version: 1, sn: o.sn, startedAt, codec: 'h264', width, height, fps, ...(audio && { audio }) });
      await this.#db.insertInto('recordings').values({ id, org_id: o.orgId, sn: o.sn, account: o.account, kind: 'live', started_at: startedAt, ended_at: null, bytes: 0 }).execute();
      let ending: Promise<void> | undefined;
      const recording: LiveRecording = {
        id,
        frame: (frame) => writer.frame(frame),
        end: () => {
          if (!ending) {
            this.#liveOpen.delete(recording);
            ending = this.#finishWriter(id, writer);
            this.#ending.add(ending);
            void ending.finally(() => ending && this.#ending.delete(ending));
          }
          return ending;
        },
      };
      this.#liveOpen.add(recording);
      return { recording };
    } catch (err) {
      this.#log.warn({ err, sn: o.sn }, 'starting a live recording failed');
      return policy === 'required' ? { refused: true } : { recording: null };
    }
  }

  /** Live recordings running (ended by close()). */
  readonly #liveOpen = new Set<LiveRecording>();

  async #finishWriter(id: string, writer: { close(): Promise<void>; readonly bytes: number }): Promise<void> {
    await writer.close().catch((err: unknown) => this.#log.warn({ err, id }, 'closing a recording failed'));
    await this.#db
      .updateTable('recordings')
      .set({ ended_at: this.#now(), bytes: writer.bytes })
      .where('id', '=', id)
      .execute()
      .catch((err: unknown) => this.#log.warn({ err, id }, 'ending a recording failed'));
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

  #finish(open: Open): Promise<void> {
    return this.#finishWriter(open.id, open.writer);
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
    for (const live of [...this.#liveOpen]) void live.end();
    await Promise.all([...this.#ending]);
  }
}

const keyOf = (sn: string, flowId: string) => `${sn}\u0000${flowId}`;
