import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Clock, isRecord } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The recorded target's name, read before the handler ran. */
    auditTargetName: string | undefined;
    /** What the handler answered, captured by the operation-log recorder for audited requests only. */
    audit: AuditCapture | undefined;
  }
}

type NameLookup = (db: Db, id: number) => Promise<string | undefined>;

const accountName: NameLookup = async (db, id) => (await db.selectFrom('accounts').select('account').where('id', '=', id).executeTakeFirst())?.account;
const roleName: NameLookup = async (db, id) => (await db.selectFrom('roles').select('name').where('id', '=', id).executeTakeFirst())?.name;
const orgName: NameLookup = async (db, id) => (await db.selectFrom('organisations').select('name').where('id', '=', id).executeTakeFirst())?.name;
const noticeTitle: NameLookup = async (db, id) => (await db.selectFrom('notices').select('title').where('id', '=', id).executeTakeFirst())?.title;
const documentTitle: NameLookup = async (db, id) => {
  const row = await db.selectFrom('documents').select(['title_en', 'title_zh']).where('id', '=', id).executeTakeFirst();
  return row && (row.title_en || row.title_zh);
};
const categoryName: NameLookup = async (db, id) => {
  const row = await db.selectFrom('document_categories').select(['name_en', 'name_zh']).where('id', '=', id).executeTakeFirst();
  return row && (row.name_en || row.name_zh);
};

/** A four-eyes request as the log names it: requester, command and its first target (issue 23). */
const approvalName: NameLookup = async (db, id) => {
  const row = await db.selectFrom('approval_requests').select(['requester', 'msg_id', 'targets', 'target_count']).where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const first = (JSON.parse(row.targets) as string[])[0] ?? '';
  return `${row.requester}: ${row.msg_id} → ${first}${row.target_count > 1 ? ` +${row.target_count - 1}` : ''}`;
};

/** Where the target id of a recorded route is named, by the route's pattern. */
function lookupFor(path: string): NameLookup | undefined {
  if (path === '/org/kitoutUser/:accountId' || /^\/permit\/(del|update)Account/.test(path)) return accountName;
  if (/^\/permit\/\w*Role/.test(path)) return roleName;
  if (path.startsWith('/org/')) return orgName;
  if (path.startsWith('/notice/')) return noticeTitle;
  if (path.startsWith('/archives-document/')) return documentTitle;
  if (path.startsWith('/archives-category/')) return categoryName;
  if (path.startsWith('/approval/:id/')) return approvalName;
  return undefined;
}

/**
 * The target's name as the call finds it: looked up by id before the handler runs (so a deletion keeps
 * it), else the name a creating call gives in its body; '' when there is none.
 */
async function targetNameOf(db: Db, req: FastifyRequest, path: string): Promise<string> {
  const id = Number(targetOf(req));
  const lookup = lookupFor(path);
  if (lookup && Number.isSafeInteger(id) && id > 0) return ((await lookup(db, id)) ?? '').slice(0, 128);
  const body = req.body;
  if (path === LOGIN_PATH || !isRecord(body)) return '';
  for (const key of ['name', 'account', 'title', 'titleEn', 'titleZh']) {
    const value = body[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 128);
  }
  return '';
}

interface AuditCapture {
  code: number;
  /** From a successful login's answer: the account that logged in and its organisation. */
  accountId?: number;
  orgId?: number;
}

/** Methods that change state and are always recorded. */
const AUDITED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** GET routes that change state (the spec's API uses GET for them), recorded like the methods above. */
export const STATE_CHANGING_GETS: ReadonlySet<string> = new Set(['/home/logout', '/org/kitoutUser/:accountId', '/notice/read-all']);

/** POST routes that only read (the spec's API lists with POST); recording them would bury the real changes. */
export const READ_ONLY_POSTS: ReadonlySet<string> = new Set([
  '/org/list',
  '/permit/getRoleList',
  '/permit/getAdminList',
  '/device/list',
  '/device/select',
  '/operation-log/list',
  // Checks the caller's own password (the console's twin of GET /org/authorizationPassword/{password}).
  '/org/authorizationPassword',
  '/api-token/list',
  '/webhook/list',
  '/webhook/deliveries',
  '/push-coupon/ledger',
  '/device/timeline',
  '/recording/policy-of',
  '/device-group/members',
  '/totp/status',
]);

/**
 * The resumable upload protocol's own requests (tus: create, each chunk, abort): the upload's effect is
 * recorded by the call that saves it (/<area>/save); a line per chunk would bury the log.
 */
const NOT_RECORDED: ReadonlySet<string> = new Set(['POST /upload/files', 'PATCH /upload/files/*', 'DELETE /upload/files/*']);

/**
 * Other POST routes that only read, by their last segment: lists, pages, selections and getters (the spec's
 * API names them so: /permit/getRoleList, /notice/sent-list, /<area>/list, /device/select).
 */
const READ_ONLY_SEGMENT = /^(list|page|select|query|search|country|deliveries|detail|count)$|[-_]list$|List$|^get[A-Z]/;

/** True for a POST route that only reads: never recorded. */
export function isReadOnlyPost(pattern: string): boolean {
  return READ_ONLY_POSTS.has(pattern) || READ_ONLY_SEGMENT.test(pattern.split('/').pop() ?? '');
}

export const LOGIN_PATH = '/login/userLogin';

/** Whether a call of this route is recorded in the operation log (a test holds every recorded route to a name). */
export function isAuditedRoute(method: string, pattern: string): boolean {
  if (NOT_RECORDED.has(`${method} ${pattern}`)) return false;
  if (AUDITED_METHODS.has(method)) return !(method === 'POST' && isReadOnlyPost(pattern));
  return method === 'GET' && STATE_CHANGING_GETS.has(pattern);
}

/** The route pattern of an audited request, or undefined when the request is not recorded. */
function auditedPath(req: FastifyRequest): string | undefined {
  const pattern = req.routeOptions.url;
  // Unmatched requests (404) have no route pattern and change nothing.
  if (!pattern) return undefined;
  return isAuditedRoute(req.method, pattern) ? pattern : undefined;
}

/** The :id path parameter (or the only path parameter), else body.id; '' when there is none. */
function targetOf(req: FastifyRequest): string {
  const params = (req.params ?? {}) as Record<string, unknown>;
  const values = Object.values(params);
  const fromParams = params.id ?? (values.length === 1 ? values[0] : undefined);
  if (typeof fromParams === 'string' || typeof fromParams === 'number') return String(fromParams);
  const id = isRecord(req.body) ? req.body.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id).slice(0, 128) : '';
}

function parseCapture(payload: unknown, login: boolean): AuditCapture | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const parsed = JSON.parse(payload) as { code?: unknown; data?: { id?: unknown; org?: { id?: unknown } } | null };
    if (typeof parsed.code !== 'number') return undefined;
    const capture: AuditCapture = { code: parsed.code };
    if (login && typeof parsed.data?.id === 'number') capture.accountId = parsed.data.id;
    if (login && typeof parsed.data?.org?.id === 'number') capture.orgId = parsed.data.org.id;
    return capture;
  } catch {
    return undefined;
  }
}

/**
 * The system operation log: every state-changing call with who, organisation, route, target, the envelope
 * code answered, address and time. No request body is stored (so no password ever is). A failed write is
 * logged and never fails the request.
 */
export function registerOperationRecorder(app: FastifyInstance, deps: { db: Db; clock: Clock }): void {
  app.decorateRequest('audit', undefined);
  app.decorateRequest('auditTargetName', undefined);

  // Before the handler: a deleted role or organisation is still there to be named.
  app.addHook('preHandler', async (req) => {
    const path = auditedPath(req);
    if (!path) return;
    try {
      req.auditTargetName = await targetNameOf(deps.db, req, path);
    } catch (err) {
      req.log.error({ err }, 'operation log target name failed');
    }
  });

  app.addHook('onSend', async (req, _reply, payload) => {
    const path = auditedPath(req);
    if (path) req.audit = parseCapture(payload, path === LOGIN_PATH);
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    const path = auditedPath(req);
    if (!path) return;
    try {
      // A caller the guard refused for a missing key is still named: who tried matters most then.
      const caller = req.caller ?? req.refusedCaller;
      // Refused before the handler (guard, schema): the target has not changed, so it is named now.
      const targetName = req.auditTargetName ?? (await targetNameOf(deps.db, req, path).catch(() => ''));
      const login = path === LOGIN_PATH;
      const username = isRecord(req.body) ? req.body.username : undefined;
      const loginAccount = login && typeof username === 'string' ? username.slice(0, 128) : '';
      await deps.db
        .insertInto('operation_log')
        .values({
          account_id: caller?.accountId ?? req.audit?.accountId ?? null,
          account: caller?.account ?? loginAccount,
          org_id: caller?.orgId ?? req.audit?.orgId ?? null,
          method: req.method,
          path,
          // The login body's `id` is its captcha challenge, not a target: the account is recorded instead.
          target: login ? '' : targetOf(req),
          target_name: targetName,
          // A non-JSON answer (none of ours) is recorded by its HTTP status.
          code: req.audit?.code ?? reply.statusCode,
          ip: req.ip ?? '',
          created_at: deps.clock.now(),
          // A request made with an API token is recorded as the token too (issue 23).
          token_name: caller?.session.apiToken?.name ?? '',
        })
        .execute();
    } catch (err) {
      req.log.error({ err }, 'operation log write failed');
    }
  });
}
