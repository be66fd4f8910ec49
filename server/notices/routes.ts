import type { FastifyInstance } from 'fastify';
import sanitizeHtml from 'sanitize-html';
import { ADMIN_ROLE, type Clock } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, Message, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf, idParams } from '../http/validation.ts';
import { NoticeRepository } from './repository.ts';
import * as s from './schemas.ts';

/**
 * Key of the authoring call. It is not in protocol/catalogue/permissions.ts, so no role can be granted it
 * and the guard cannot check it: the route takes a session and publishNotice checks the admin role itself.
 * Once the key is catalogued, the route's config can name it and that check can go.
 */
export const NOTICE_PUBLISH_PERMISSION = 'notice_publish';

export const NoticeMessage = {
  Gone: 'The notice no longer exists',
} as const;

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
export function registerNoticeRoutes(app: FastifyInstance, deps: NoticeRouteDeps): void {
  const config = { permission: 'session' };
  const { clock } = deps;
  const notices = new NoticeRepository(deps.db);

  app.get<{ Querystring: s.PageQuery }>('/notice/page', { config, schema: { querystring: s.pageQuery } }, async (req) => {
    const pageNum = Number(req.query.pageNum ?? '1');
    const pageSize = Number(req.query.pageSize ?? '10');
    return ok(await notices.page(callerOf(req).accountId, pageNum, pageSize));
  });

  app.get<{ Params: { id: string } }>('/notice/detail/:id', { config, schema: { params: idParams('id') } }, async (req) => {
    const found = await notices.detail(callerOf(req).accountId, idOf(req.params.id));
    // Another account's delivery looks the same as a deleted one.
    if (!found) throw new ApiError(ApiCode.NotFound, NoticeMessage.Gone);
    return ok(found);
  });

  app.post<{ Body: s.NoticeIdsBody }>('/notice/read', { config, schema: { body: s.noticeIdsBody } }, async (req) => {
    await notices.markRead(callerOf(req).accountId, req.body.noticeIds, clock.now());
    return ok(null);
  });

  app.get('/notice/read-all', { config }, async (req) => {
    await notices.markRead(callerOf(req).accountId, undefined, clock.now());
    return ok(null);
  });

  app.delete<{ Body: s.NoticeIdsBody }>('/notice/delete', { config, schema: { body: s.noticeIdsBody } }, async (req) => {
    await notices.remove(callerOf(req).accountId, req.body.noticeIds);
    return ok(null);
  });

  // The spec sends a body with this call; nothing in it is needed, so it is not read.
  app.delete('/notice/delete-all', { config }, async (req) => {
    await notices.remove(callerOf(req).accountId, undefined);
    return ok(null);
  });

  app.get('/notice/unreadNoticeCount', { config }, async (req) => ok(await notices.unreadCount(callerOf(req).accountId)));

  app.post<{ Body: s.PublishBody }>('/notice/publish', { config, schema: { body: s.publishBody } }, async (req) =>
    ok(await publishNotice({ clock, notices }, callerOf(req), req.body)),
  );
}

async function publishNotice(deps: Deps, caller: Caller, body: s.PublishBody): Promise<{ id: number; recipients: number }> {
  // Stands in for the 'notice_publish' key, which the catalogue does not hold (see NOTICE_PUBLISH_PERMISSION).
  if (caller.role !== ADMIN_ROLE) throw new ApiError(ApiCode.Forbidden, Message.PermissionDenied);
  const title = cleanText(body.title, 'Title', true);
  const orgIds = body.orgIds ? [...new Set(body.orgIds)] : [...caller.scope];
  if (orgIds.some((id) => !caller.scope.has(id))) throw new ApiError(ApiCode.Forbidden, Message.PermissionDenied);
  return deps.notices.publish({
    title,
    content: sanitizeNotice(body.content),
    sendTime: deps.clock.now(),
    senderAccountId: caller.accountId,
    senderName: caller.nickname || caller.account,
    senderOrgName: caller.orgName,
    orgIds,
  });
}
