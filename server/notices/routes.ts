import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdPath } from '../../protocol/api/common.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sanitizeHtml from 'sanitize-html';
import { type Clock, englishOf } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import { hotAction, uploadLimit } from '../http/rate-limit.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, hasEmoji, idOf, MAX_TEXT } from '../http/validation.ts';
import { NoticeRepository } from './repository.ts';
import * as c from '../../protocol/api/notices.ts';

/** Key of notice authoring: publishing, the sent list, withdrawing and attachments (catalogued, ours). */
export const NOTICE_PUBLISH_PERMISSION = 'notice_publish';

export const NoticeMessage = englishOf({
  Gone: 'notice.gone',
  AttachmentGone: 'notice.attachmentGone',
  AttachmentRefused: 'notice.attachmentRefused',
  FileTooLarge: 'notice.fileTooLarge',
  FileMissing: 'notice.fileMissing',
  FileName: 'notice.fileName',
});

export interface NoticeRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
}

interface Deps {
  readonly clock: Clock;
  readonly notices: NoticeRepository;
}

/**
 * Tags and attributes a notice may hold: sanitize-html's defaults (no script, style, iframe or form
 * elements, no on* attributes, only http/https/ftp/mailto/tel URLs) plus images and headings.
 */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'span', 'u', 's'],
  allowedAttributes: { a: ['href', 'name', 'target', 'rel'], img: ['src', 'alt', 'title', 'width', 'height'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
};

/** Notice content as stored and served: sanitised HTML. */
export function sanitizeNotice(html: string): string {
  return sanitizeHtml(html, SANITIZE).trim();
}

/** Notices (platform-core section 7, /notice/*): each caller sees and changes only their own deliveries. */
export async function noticeRoutes(app: FastifyInstance, deps: NoticeRouteDeps): Promise<void> {
  const config = { permission: 'session' };
  const hot = { ...config, ...hotAction };
  const { clock, db } = deps;
  const notices = new NoticeRepository(db, async (orgId) => {
    const tree = await currentOrgTree(db);
    const scope = tree.scopeOf(orgId);
    return { scope, coversAll: tree.coversAll(scope) };
  });
  // Scheduled notices are delivered by whoever reads first once they are due, on any node. The check is
  // one indexed read, made at most once per DUE_CHECK_MS per node so that the polled unread count stays cheap.
  let checkedAt = Number.NEGATIVE_INFINITY;
  // Requests typed from the contract's schemas (protocol/api/notices.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const due = async () => {
    const now = clock.now();
    if (now - checkedAt < DUE_CHECK_MS) return;
    checkedAt = now;
    await notices.deliverDue(now);
  };

  api.get('/notice/page', { config, schema: { querystring: c.NoticePageQuery } }, async (req) => {
    const pageNum = Number(req.query.pageNum ?? '1');
    const pageSize = Number(req.query.pageSize ?? '10');
    await due();
    return ok(await notices.page(callerOf(req).accountId, pageNum, pageSize));
  });

  api.get('/notice/detail/:id', { config, schema: { params: IdPath } }, async (req) => {
    await due();
    const found = await notices.detail(callerOf(req).accountId, idOf(req.params.id));
    // Another account's delivery looks the same as a deleted one.
    if (!found) throw new ApiError(ApiCode.NotFound, 'notice.gone');
    return ok(found);
  });

  api.post('/notice/read', { config: hot, schema: { body: c.NoticeIdsBody } }, async (req) => {
    await notices.markRead(callerOf(req).accountId, req.body.noticeIds, clock.now());
    return ok(null);
  });

  app.get('/notice/read-all', { config: hot }, async (req) => {
    await notices.markRead(callerOf(req).accountId, undefined, clock.now());
    return ok(null);
  });

  api.delete('/notice/delete', { config: hot, schema: { body: c.NoticeIdsBody } }, async (req) => {
    await notices.remove(callerOf(req).accountId, req.body.noticeIds);
    return ok(null);
  });

  // The spec sends a body with this call; nothing in it is needed, so it is not read.
  app.delete('/notice/delete-all', { config: hot }, async (req) => {
    await notices.remove(callerOf(req).accountId, undefined);
    return ok(null);
  });

  app.get('/notice/unreadNoticeCount', { config }, async (req) => {
    await due();
    return ok(await notices.unreadCount(callerOf(req).accountId));
  });

  registerAuthoringRoutes(app, { clock, notices });
}

/** Notice authoring (ours; the spec shows only the reader side): publish, list sent, withdraw, attachments. */
function registerAuthoringRoutes(app: FastifyInstance, deps: Deps): void {
  const config = { permission: NOTICE_PUBLISH_PERMISSION };
  const hot = { ...config, ...hotAction };
  const { notices, clock } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/notice/publish', { config: hot, schema: { body: c.PublishNoticeBody } }, async (req) =>
    ok(await publishNotice(deps, callerOf(req), req.body)),
  );

  api.post('/notice/sent-list', { config, schema: { body: c.SentListBody } }, async (req) => {
    const caller = callerOf(req);
    await notices.deliverDue(clock.now());
    return ok(await notices.sent(caller.scope, caller.scopeCoversAll, req.body.pageNum ?? 1, req.body.pageSize ?? 10));
  });

  api.delete('/notice/withdraw/:id', { config: hot, schema: { params: IdPath } }, async (req) => {
    const id = idOf(req.params.id);
    const found = await notices.senderOrgOf(id);
    if (!found) throw new ApiError(ApiCode.NotFound, 'notice.gone');
    // Withdrawing reaches the notices of the author's own subtree only; an orphaned one, the root's.
    const caller = callerOf(req);
    if (found.orgId === null ? !caller.scopeCoversAll : !caller.scope.has(found.orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
    await notices.withdraw(id);
    return ok(null);
  });

  // Readers download too, so the route takes a session and the repository checks who may read the file.
  api.get('/notice/attachment/:id', { config: { permission: 'session' }, schema: { params: IdPath } }, async (req, reply) => {
    const caller = callerOf(req);
    const authorScope = caller.permissions.has(NOTICE_PUBLISH_PERMISSION) ? caller.scope : undefined;
    const file = await notices.attachmentFor(idOf(req.params.id), caller.accountId, authorScope);
    if (!file) throw new ApiError(ApiCode.NotFound, 'notice.attachmentGone');
    // Always a download and never sniffed, so an uploaded page or script cannot run in the console's origin.
    return reply
      .header('content-type', INLINE_SAFE_TYPES.has(file.mime) ? file.mime : 'application/octet-stream')
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', contentDisposition(file.name))
      .send(Buffer.from(file.bytes));
  });

  // Multipart parsing is confined to this plugin's routes (encapsulated), so no other route accepts it.
  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: c.MAX_ATTACHMENT_BYTES, files: 1, fields: 0, parts: 1 } });
    scope.post('/notice/attachment', { config: { ...config, ...uploadLimit }, schema: { consumes: ['multipart/form-data'] } }, async (req) => {
      const caller = callerOf(req);
      const { name, mime, bytes } = await readUpload(req);
      return ok(await notices.addAttachment({ name, mime, bytes, uploadedBy: caller.accountId, now: clock.now() }));
    });
  });
}

/** Longest a due notice waits for delivery after its send time (on a node that is being read). */
export const DUE_CHECK_MS = 1_000;

// Types a browser may show inline; anything else is served as bytes.
const INLINE_SAFE_TYPES = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'text/plain']);

/** The one uploaded file of a multipart request, with a clear message for every way it can be wrong. */
async function readUpload(req: FastifyRequest): Promise<{ name: string; mime: string; bytes: Uint8Array }> {
  if (!req.isMultipart()) throw new ApiError(ApiCode.BadRequest, 'notice.fileMissing');
  let part;
  try {
    part = await req.file();
  } catch {
    throw new ApiError(ApiCode.BadRequest, 'notice.fileMissing');
  }
  if (!part) throw new ApiError(ApiCode.BadRequest, 'notice.fileMissing');
  const name = safeFileName(part.filename);
  let bytes: Buffer;
  try {
    bytes = await part.toBuffer();
  } catch (err) {
    if ((err as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(ApiCode.BadRequest, 'notice.fileTooLarge');
    throw err;
  }
  if (bytes.byteLength === 0) throw new ApiError(ApiCode.BadRequest, 'notice.fileMissing');
  return { name, mime: part.mimetype.slice(0, 100).toLowerCase(), bytes };
}

/**
 * A client's file name made safe to store and to send back in a header: its last path segment only, no
 * control characters, no leading dot (platform-core section 5), at most 128 characters. The name is never
 * used as a path: the bytes live in the database.
 */
export function safeFileName(raw: string | undefined): string {
  const last = (raw ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const name = last.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, MAX_TEXT);
  if (!name || name.startsWith('.') || hasEmoji(name)) throw new ApiError(ApiCode.BadRequest, 'notice.fileName');
  return name;
}

/** An attachment header with an ASCII fallback and the exact UTF-8 name (RFC 6266 / RFC 5987). */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/[\\"]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

async function publishNotice(deps: Deps, caller: Caller, body: c.PublishNoticeBody): Promise<c.PublishedNotice> {
  const title = cleanText(body.title, 'field.title', true);
  const orgIds = body.orgIds ? [...new Set(body.orgIds)] : undefined;
  if (orgIds?.some((id) => !caller.scope.has(id))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  const now = deps.clock.now();
  const result = await deps.notices.publish({
    title,
    content: sanitizeNotice(body.content),
    // A time already past sends now, dated now, so a late notice is not buried under older ones.
    sendTime: Math.max(body.sendTime ?? now, now),
    now,
    senderAccountId: caller.accountId,
    senderOrgId: caller.orgId,
    senderName: caller.nickname || caller.account,
    senderOrgName: caller.orgName,
    orgIds,
    attachmentIds: [...new Set(body.attachmentIds ?? [])],
  });
  if ('refused' in result) throw new ApiError(ApiCode.BadRequest, 'notice.attachmentRefused');
  return result;
}
