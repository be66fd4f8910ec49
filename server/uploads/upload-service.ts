import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { FileStore } from '@tus/file-store';
import { Server as TusServer } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type MessageRef, msg, type PlainMessageKey } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { LiveCallers, LiveRequest } from '../accounts/live-callers.ts';
import { perCallerLimit } from '../http/rate-limit.ts';
import { ApiCode, ApiError, failure } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { requestLanguage } from '../http/language.ts';
import { isUploadKind, looksLikeImage, looksLikeZip, refuseUpload, UPLOAD_PERMISSION, type UploadKindCode } from './upload-kinds.ts';
import { DEFAULT_UPLOAD_LIMITS, listUploads, quotaRefusal, sweepable, type UploadLimits } from './upload-limits.ts';

/** Where resumable uploads are created (tus protocol 1.0.0). */
export const UPLOAD_PATH = '/upload/files';
const OWNER_HEADER = 'x-dcc-upload-owner';
const UPLOAD_ID = /^[0-9a-f]{32}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** Unfinished uploads are dropped after a day. */
const UPLOAD_EXPIRY_MS = 24 * 3_600_000;

/** A finished upload, hashed and moved into the content store. */
export interface StoredFile {
  readonly sha256: string;
  readonly size: number;
  readonly fileName: string;
}

/** Upload-Metadata: comma-separated `key base64(value)` pairs (tus 1.0.0). */
export function parseUploadMetadata(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (header ?? '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (key) out[key] = value ? Buffer.from(value, 'base64').toString('utf8') : '';
  }
  return out;
}

function tusError(req: FastifyRequest, reply: FastifyReply, status: number, message: PlainMessageKey | MessageRef): FastifyReply {
  // tus clients read the status; the console shows the envelope's message (by its key) from the body.
  const ref = typeof message === 'string' ? msg(message) : message;
  return reply.status(status).header('Tus-Resumable', '1.0.0').type('application/json').send(failure(ApiCode.BadRequest, ref, requestLanguage(req)));
}

/**
 * The file store: resumable uploads into DATA_DIR/uploads (tus, @tus/server with @tus/file-store), and
 * finished files kept once each under DATA_DIR/content by their SHA-256, so a blob's name is its hash and
 * no user-supplied text ever reaches a path.
 */
/**
 * The tus file store without its own directory check: the constructor above makes the folder synchronously,
 * while FileStore's check is an fs.mkdir whose callback throws, uncaught, when the data folder is gone by
 * then (a test server stopped within a second of starting crashed the test run with ENOENT).
 */
class MadeDirFileStore extends FileStore {}
// The method is private in FileStore's types; the constructor calls it through `this`.
Object.defineProperty(MadeDirFileStore.prototype, 'checkOrCreateDirectory', { value: () => undefined });

export class UploadService {
  readonly #uploadDir: string;
  readonly #blobDir: string;
  readonly #store: FileStore;
  readonly #tus: TusServer;
  readonly #limits: UploadLimits;
  /** Per account, the creation in progress in this process: creations queue, so each sees the ones before it. */
  readonly #creating = new Map<string, Promise<void>>();

  constructor(dataDir: string, limits: UploadLimits = DEFAULT_UPLOAD_LIMITS) {
    this.#limits = limits;
    this.#uploadDir = path.join(dataDir, 'uploads');
    this.#blobDir = path.join(dataDir, 'content');
    fs.mkdirSync(this.#uploadDir, { recursive: true });
    fs.mkdirSync(this.#blobDir, { recursive: true });
    this.#store = new MadeDirFileStore({ directory: this.#uploadDir, expirationPeriodInMilliseconds: UPLOAD_EXPIRY_MS });
    this.#tus = new TusServer({
      path: UPLOAD_PATH,
      datastore: this.#store,
      relativeLocation: true,
      namingFunction: () => randomBytes(16).toString('hex'),
      onUploadCreate: async (req, upload) => ({ metadata: { ...upload.metadata, owner: req.headers.get(OWNER_HEADER) ?? '' } }),
    });
  }

  /**
   * Mounts the tus endpoints; every request needs a session, and an upload is reachable by its creator only.
   * Creation is rate-limited and capped per account (upload-limits.ts); a PATCH sending bytes is held to its
   * session and the upload kind's key through `live`, and cut off when either is gone.
   */
  register(app: FastifyInstance, live?: LiveCallers): void {
    // The tus handler reads the body itself, streaming it to disk.
    app.addContentTypeParser('application/offset+octet-stream', (_req, _payload, done) => done(null));
    const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      const caller = callerOf(req);
      const raw = req.raw;
      // A creation holds its account's place in the queue until tus has written it; a PATCH is tracked while it runs.
      let release: (() => void) | undefined;
      let tracked: LiveRequest | undefined;
      if (req.method === 'POST') {
        const meta = parseUploadMetadata(req.headers['upload-metadata'] as string | undefined);
        const kind = meta.kind ?? '';
        if (!isUploadKind(kind)) return tusError(req, reply, 400, 'upload.unknownKind');
        if (!caller.permissions.has(UPLOAD_PERMISSION[kind])) return tusError(req, reply, 403, 'common.permissionDenied');
        const length = Number(req.headers['upload-length']);
        if (req.headers['upload-length'] === undefined || !Number.isSafeInteger(length)) return tusError(req, reply, 400, 'upload.noLength');
        const refusal = refuseUpload(kind, meta.filename ?? '', length);
        if (refusal) return tusError(req, reply, refusal.key === 'upload.tooLargeAtMost' ? 413 : 400, refusal);
        release = await this.#queueCreation(String(caller.accountId));
        const over = await listUploads(this.#store, this.#uploadDir).then(
          (open) => quotaRefusal(open, String(caller.accountId), length, this.#limits),
          (err: unknown) => {
            release?.();
            throw err;
          },
        );
        if (over) {
          release();
          return over === 'count'
            ? tusError(req, reply, 429, msg('upload.tooManyOpen', { max: this.#limits.maxOpenPerAccount }))
            : tusError(req, reply, 413, msg('upload.tooManyBytes', { mb: Math.floor(this.#limits.maxBytesPerAccount / (1024 * 1024)) }));
        }
      } else if (req.method !== 'OPTIONS') {
        const id = (req.params as { '*'?: string })['*'] ?? '';
        if (!UPLOAD_ID.test(id)) return tusError(req, reply, 404, 'upload.gone');
        const upload = await this.#store.getUpload(id).catch(() => undefined);
        if (!upload || upload.metadata?.owner !== String(caller.accountId)) return tusError(req, reply, 404, 'upload.gone');
        if (req.method === 'PATCH' && live) {
          const kind = upload.metadata?.kind ?? '';
          tracked = await live.open(caller.session, isUploadKind(kind) ? UPLOAD_PERMISSION[kind] : 'session', () => raw.destroy());
          if (!tracked) return tusError(req, reply, 403, 'common.permissionDenied');
        }
      }
      // Only the server sets the owner: a client's own header of that name is dropped.
      // (Both header views: the tus request wrapper reads rawHeaders.)
      const kept: string[] = [];
      for (let i = 0; i + 1 < raw.rawHeaders.length; i += 2) {
        if ((raw.rawHeaders[i] ?? '').toLowerCase() !== OWNER_HEADER) kept.push(raw.rawHeaders[i] ?? '', raw.rawHeaders[i + 1] ?? '');
      }
      raw.rawHeaders.splice(0, raw.rawHeaders.length, ...kept, OWNER_HEADER, String(caller.accountId));
      raw.headers[OWNER_HEADER] = String(caller.accountId);
      reply.hijack();
      try {
        await this.#tus.handle(raw, reply.raw);
      } finally {
        release?.();
        tracked?.close();
      }
      return undefined;
    };
    const config = { permission: 'session' };
    const schema = { hide: true };
    app.route({ method: 'POST', url: UPLOAD_PATH, config: { ...config, ...perCallerLimit(this.#limits.createPerMinute, 60_000) }, schema, handler });
    app.route({ method: 'OPTIONS', url: UPLOAD_PATH, config, schema, handler });
    app.route({ method: ['PATCH', 'HEAD', 'DELETE', 'OPTIONS'], url: `${UPLOAD_PATH}/*`, config, schema, handler });
  }

  /**
   * Takes a finished upload of the caller's: checks its kind and content, hashes it as it streams, and moves
   * it into the content store. The upload is gone afterwards; the stored file is named by its hash.
   */
  async take(uploadUrlOrId: string, caller: Caller, kinds: readonly UploadKindCode[]): Promise<StoredFile & { kind: UploadKindCode }> {
    const id = uploadUrlOrId.split('/').pop() ?? '';
    if (!UPLOAD_ID.test(id)) throw new ApiError(ApiCode.BadRequest, 'upload.gone');
    const upload = await this.#store.getUpload(id).catch(() => undefined);
    if (!upload || upload.metadata?.owner !== String(caller.accountId)) throw new ApiError(ApiCode.BadRequest, 'upload.gone');
    const kind = upload.metadata?.kind ?? '';
    if (!isUploadKind(kind) || !kinds.includes(kind)) throw new ApiError(ApiCode.BadRequest, 'upload.wrongFormat');
    if (upload.size === undefined || upload.offset !== upload.size) throw new ApiError(ApiCode.BadRequest, 'upload.notFinished');
    const file = path.join(this.#uploadDir, id);
    const head = Buffer.alloc(8);
    const fd = await fs.promises.open(file, 'r');
    try {
      await fd.read(head, 0, 8, 0);
    } finally {
      await fd.close();
    }
    const refuse = async (message: PlainMessageKey) => {
      await this.#store.remove(id).catch(() => undefined);
      return new ApiError(ApiCode.BadRequest, message);
    };
    if ((kind === 'logo' || kind === 'wallpaper') && !looksLikeImage(head)) throw await refuse('upload.imageOnly');
    // A file named .apk that is not a ZIP is a corrupt APK, not a wrong format: say so (issue 20).
    if ((kind === 'app' || kind === 'boot_animation') && !looksLikeZip(head)) throw await refuse(kind === 'app' ? 'content.notAnApk' : 'upload.wrongFormat');
    const hash = createHash('sha256');
    await pipeline(fs.createReadStream(file), hash);
    const sha256 = hash.digest('hex');
    const target = this.blobPath(sha256);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    if (fs.existsSync(target)) await fs.promises.unlink(file);
    else await fs.promises.rename(file, target);
    await this.#store.configstore.delete(id);
    return { sha256, size: upload.size, fileName: upload.metadata?.filename ?? '', kind };
  }

  /** Path of a stored file by its hash. */
  blobPath(sha256: string): string {
    if (!SHA256.test(sha256)) throw new Error('not a sha256');
    return path.join(this.#blobDir, sha256.slice(0, 2), sha256);
  }

  /** Removes a stored file once nothing refers to it any more. */
  async drop(sha256: string): Promise<void> {
    await fs.promises.unlink(this.blobPath(sha256)).catch(() => undefined);
  }

  /**
   * Drops unfinished uploads a day after their creation and finished ones no add call took within
   * `unclaimedMs` of their last byte, telling them apart by the bytes on disk (@tus/file-store's
   * deleteExpired judges by the offset stored at creation, which nothing updates).
   */
  async sweep(now: number): Promise<number> {
    const gone = sweepable(await listUploads(this.#store, this.#uploadDir), now, UPLOAD_EXPIRY_MS, this.#limits);
    let removed = 0;
    // One at a time, and a file another process took or swept meanwhile is simply skipped.
    for (const upload of gone) if (await this.#store.remove(upload.id).then(() => true, () => false)) removed++;
    return removed;
  }

  /** How often {@link sweep} is to run. */
  get sweepEveryMs(): number {
    return this.#limits.sweepEveryMs;
  }

  /** Waits for this account's earlier creation in this process to finish; returns the release of this one. */
  async #queueCreation(owner: string): Promise<() => void> {
    const before = this.#creating.get(owner) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chain = before.then(() => mine);
    this.#creating.set(owner, chain);
    await before;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      if (this.#creating.get(owner) === chain) this.#creating.delete(owner);
    };
  }
}
