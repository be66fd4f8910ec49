import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the handler answered, captured by the operation-log recorder for audited requests only. */
    audit: AuditCapture | undefined;
  }
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
]);

export const LOGIN_PATH = '/login/userLogin';

/** The route pattern of an audited request, or undefined when the request is not recorded. */
function auditedPath(req: FastifyRequest): string | undefined {
  const pattern = req.routeOptions.url;
  // Unmatched requests (404) have no route pattern and change nothing.
  if (!pattern) return undefined;
  if (AUDITED_METHODS.has(req.method)) return req.method === 'POST' && READ_ONLY_POSTS.has(pattern) ? undefined : pattern;
  return req.method === 'GET' && STATE_CHANGING_GETS.has(pattern) ? pattern : undefined;
}

/** The :id path parameter (or the only path parameter), else body.id; '' when there is none. */
function targetOf(req: FastifyRequest): string {
  const params = (req.params ?? {}) as Record<string, unknown>;
  const values = Object.values(params);
  const fromParams = params.id ?? (values.length === 1 ? values[0] : undefined);
  if (typeof fromParams === 'string' || typeof fromParams === 'number') return String(fromParams);
  const body = req.body as Record<string, unknown> | null | undefined;
  const id = body && typeof body === 'object' ? body.id : undefined;
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

  app.addHook('onSend', async (req, _reply, payload) => {
    const path = auditedPath(req);
    if (path) req.audit = parseCapture(payload, path === LOGIN_PATH);
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    const path = auditedPath(req);
    if (!path) return;
    try {
      const caller = req.caller;
      const login = path === LOGIN_PATH;
      const body = req.body as { username?: unknown } | null | undefined;
      const loginAccount = login && body && typeof body.username === 'string' ? body.username.slice(0, 128) : '';
      await deps.db
        .insertInto('operation_log')
        .values({
          account_id: caller?.accountId ?? req.audit?.accountId ?? null,
          account: caller?.account ?? loginAccount,
          org_id: caller?.orgId ?? req.audit?.orgId ?? null,
          method: req.method,
          path,
          target: targetOf(req),
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
