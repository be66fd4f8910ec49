import fs from 'node:fs';
import path from 'node:path';
import type { FileStore } from '@tus/file-store';

/*
 * What bounds the upload directory (security review M5). Every upload lives there from its creation until
 * an add call takes it into the content store, so without bounds one account could fill the disk: by
 * creating uploads it never finishes, by finishing uploads it never takes, or by creating them in a loop.
 *  - Per account, the uploads open at once (created, not taken or swept) and the bytes they declare
 *    together (Upload-Length, required at creation) are capped: the directory holds at most
 *    accounts x maxBytesPerAccount.
 *  - A sweep removes unfinished uploads a day after their creation (the tus expiry) and finished ones
 *    nobody took `unclaimedMs` after their last byte.
 *  - Creating uploads is rate-limited per account.
 */

export interface UploadLimits {
  /** Uploads one account may have open at once (UPLOAD_MAX_OPEN). */
  readonly maxOpenPerAccount: number;
  /** Bytes those open uploads may declare together (UPLOAD_MAX_BYTES_MB, in MB). */
  readonly maxBytesPerAccount: number;
  /** A finished upload no add call took is removed this long after its last byte (UPLOAD_UNCLAIMED_SECONDS). */
  readonly unclaimedMs: number;
  /** Uploads one account may create per minute (UPLOAD_CREATE_PER_MINUTE). */
  readonly createPerMinute: number;
  /** How often the sweep runs (UPLOAD_SWEEP_SECONDS). */
  readonly sweepEveryMs: number;
}

const MB = 1024 * 1024;

/**
 * Defaults: room for a firmware image at its 2 GB cap and a few more files at once; a day to take a
 * finished upload (a person fills in the form after the upload ends); a person attaching files never
 * creates 30 a minute, a loop soon does.
 */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxOpenPerAccount: 20,
  maxBytesPerAccount: 5 * 1024 * MB,
  unclaimedMs: 24 * 3_600_000,
  createPerMinute: 30,
  sweepEveryMs: 3_600_000,
};

function positiveFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

/** Reads the limits from the environment (README names the variables). */
export function uploadLimitsFrom(env: NodeJS.ProcessEnv): UploadLimits {
  const d = DEFAULT_UPLOAD_LIMITS;
  return {
    maxOpenPerAccount: positiveFrom(env.UPLOAD_MAX_OPEN, d.maxOpenPerAccount, 'UPLOAD_MAX_OPEN'),
    maxBytesPerAccount: positiveFrom(env.UPLOAD_MAX_BYTES_MB, d.maxBytesPerAccount / MB, 'UPLOAD_MAX_BYTES_MB') * MB,
    unclaimedMs: positiveFrom(env.UPLOAD_UNCLAIMED_SECONDS, d.unclaimedMs / 1000, 'UPLOAD_UNCLAIMED_SECONDS') * 1000,
    createPerMinute: positiveFrom(env.UPLOAD_CREATE_PER_MINUTE, d.createPerMinute, 'UPLOAD_CREATE_PER_MINUTE'),
    sweepEveryMs: positiveFrom(env.UPLOAD_SWEEP_SECONDS, d.sweepEveryMs / 1000, 'UPLOAD_SWEEP_SECONDS') * 1000,
  };
}

/** An upload in the directory, as the limits see it. */
export interface OpenUpload {
  readonly id: string;
  /** Account id of its creator (the server-set owner), '' when unknown. */
  readonly owner: string;
  /** Declared length. */
  readonly size: number;
  /** Bytes received so far. */
  readonly offset: number;
  readonly createdAt: number;
  /** When its last byte was written. */
  readonly modifiedAt: number;
}

/**
 * Every upload in the store, read from the disk (the processes of a node share the directory, so no
 * process's memory is the truth). Entries that vanish while read (taken, swept) are skipped.
 */
export async function listUploads(store: FileStore, directory: string): Promise<OpenUpload[]> {
  const ids = (await store.configstore.list?.()) ?? [];
  const out: OpenUpload[] = [];
  for (const id of ids) {
    const upload = await store.getUpload(id).catch(() => undefined);
    const stat = await fs.promises.stat(path.join(directory, id)).catch(() => undefined);
    if (!upload || !stat) continue;
    const created = upload.creation_date ? Date.parse(upload.creation_date) : stat.birthtimeMs;
    out.push({
      id,
      owner: upload.metadata?.owner ?? '',
      size: upload.size ?? 0,
      offset: upload.offset,
      createdAt: Number.isFinite(created) ? created : stat.mtimeMs,
      modifiedAt: stat.mtimeMs,
    });
  }
  return out;
}

/** Why `owner` may not open another upload of `length` bytes beside `open`, or undefined when it may. */
export function quotaRefusal(open: readonly OpenUpload[], owner: string, length: number, limits: UploadLimits): 'count' | 'bytes' | undefined {
  const own = open.filter((u) => u.owner === owner);
  if (own.length >= limits.maxOpenPerAccount) return 'count';
  const bytes = own.reduce((sum, u) => sum + u.size, 0);
  return bytes + length > limits.maxBytesPerAccount ? 'bytes' : undefined;
}

/** Uploads the sweep removes at `now`: unfinished past `unfinishedMs` from creation, finished and untaken past `limits.unclaimedMs`. */
export function sweepable(uploads: readonly OpenUpload[], now: number, unfinishedMs: number, limits: UploadLimits): OpenUpload[] {
  return uploads.filter((u) => (u.offset < u.size ? now - u.createdAt > unfinishedMs : now - u.modifiedAt > limits.unclaimedMs));
}
