import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { type Clock, MAX_NESTING, type MessageRef, msg } from '../protocol/index.ts';
import type { CaptchaStore } from './auth/captcha.ts';
import { LoginGuard } from './auth/login-guard.ts';
import { languageRoute } from './accounts/language-route.ts';
import { registerOperationRecorder } from './audit/recorder.ts';
import { operationLogRoutes } from './audit/routes.ts';
import { simRoutes } from './cards/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { oidcRoutes } from './auth/oidc/routes.ts';
import type { OidcSettings } from './auth/oidc/oidc-settings.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerRouteRegistry } from './http/route-registry.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import type { SessionStore } from './auth/sessions.ts';
import type { Db } from './db/database.ts';
import type { DeviceRepository } from './devices/repository.ts';
import { deviceRoutes } from './devices/routes.ts';
import type { Gateway } from './gateway/gateway.ts';
import { documentRoutes } from './documents/routes.ts';
import { ApiCode, ApiError, failure } from './http/envelope.ts';
import { requestLanguage } from './http/language.ts';
import { registerGuard } from './http/guard.ts';
import { schemaErrorFormatter } from './http/validation.ts';
import { BodyTooDeepError, registerJsonBody } from './http/json-body.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import { noticeRoutes } from './notices/routes.ts';
import { contentRoutes } from './content/routes.ts';
import { customOrderRoutes } from './content/custom-orders.ts';
import campaignsPlugin from './campaigns/plugin.ts';
import { campaignRoutes } from './campaigns/routes.ts';
import liveCallersPlugin from './accounts/live-callers-plugin.ts';
import uploadsPlugin from './uploads/plugin.ts';
import { uploadRoutes } from './uploads/routes.ts';
import { OrgRepository } from './orgs/repository.ts';
import { orgRoutes } from './orgs/routes.ts';
import { AdminAccountRepository, RoleRepository } from './permits/repository.ts';
import { permitRoutes } from './permits/routes.ts';
import { reportRoutes } from './reports/routes.ts';
import telemetryPlugin from './telemetry/plugin.ts';
import type { TelemetrySettings } from './telemetry/ingest.ts';
import type { UploadLimits } from './uploads/upload-limits.ts';
import { metricsRoute } from './metrics/metrics.ts';
import { deviceOpsRoutes } from './gateway/device-ops-routes.ts';
import { groupControlRoutes } from './gateway/group-control-routes.ts';
import { timelineRoutes } from './timeline/routes.ts';
import { recordingRoutes } from './recordings/routes.ts';
import { deviceGroupRoutes } from './groups/routes.ts';
import { savedViewRoutes } from './groups/views.ts';
import { deviceFieldRoutes } from './device-fields/routes.ts';
import { apiTokenRoutes } from './api-tokens/routes.ts';
import webhooksPlugin from './webhooks/plugin.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { totpRoutes } from './totp/routes.ts';
import approvalsPlugin from './approvals/plugin.ts';
import { approvalRoutes } from './approvals/routes.ts';

/** Base path the console is served under (platform-core section 2). */
export const CONSOLE_BASE = '/user/';

export interface AppDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: SessionStore;
  readonly captcha: CaptchaStore;
  readonly captchaEnabled: boolean;
  readonly devices: DeviceRepository;
  /** Routes that command devices go through the gateway, as console sockets do. */
  readonly gateway: Gateway;
  readonly consoleDir: string;
  /** Where uploads and stored content live (DATA_DIR). */
  readonly dataDir: string;
  /** Retention of telemetry and reports, and the abnormal thresholds. */
  readonly telemetry: TelemetrySettings;
  /** Most organisations below the root (ORG_CREATE_LIMIT); undefined for no limit. */
  readonly orgCreateLimit?: number | undefined;
  /** PAYMENT_SANDBOX=on: Alipay goes to the sandbox, which payment administrators may complete. */
  readonly paymentSandbox?: boolean;
  /** Single sign-on through an OpenID provider; absent when off. */
  readonly oidc?: OidcSettings | undefined;
  /** Per-account upload caps, upload creation rate and the sweep (defaults when absent). */
  readonly uploadLimits?: UploadLimits | undefined;
  readonly logger?: FastifyServerOptions['logger'];
}

/** The message of a client error raised by Fastify or a plugin (bad JSON, too large, wrong content type). */
function clientErrorMessage(err: Error & { code?: unknown; statusCode?: number }): MessageRef {
  if (err instanceof BodyTooDeepError) return msg('common.bodyTooDeep', { max: MAX_NESTING });
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return msg('common.invalidJson');
  if (err.statusCode === 413 || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === 'FST_REQ_FILE_TOO_LARGE') return msg('common.bodyTooLarge');
  if (err.statusCode === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return msg('common.unsupportedMediaType');
  return msg('common.invalidRequest');
}

/** Builds the HTTP application: API routes with the spec's envelope, and the built console. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: 1024 * 1024,
    // Spec clients time out after 300000 ms; the server gives up on a stalled request before that.
    requestTimeout: 290_000,
    // verbose: a schema error carries its schema, so a length message can give both ends (validation.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, verbose: true } },
    schemaErrorFormatter,
  });

  // Every failure answers with a catalogue key, its parameters and `message` in the caller's language
  // (docs/DECISIONS.md, "Errors as keys"): no framework, validator or stack text reaches a user.
  app.setErrorHandler((err: Error & { validation?: unknown; statusCode?: number }, req, reply) => {
    const lang = requestLanguage(req);
    if (err instanceof ApiError) return reply.status(200).send(failure(err.code, err.ref, lang));
    if (err.validation) return reply.status(200).send(failure(ApiCode.BadRequest, msg('common.invalidRequest'), lang));
    if (err.statusCode && err.statusCode < 500) return reply.status(err.statusCode).send(failure(ApiCode.BadRequest, clientErrorMessage(err), lang));
    // The database restarting or failing over: the pool reconnects by itself, the caller may retry.
    if (isDatabaseUnavailable(err)) {
      req.log.error({ err }, 'database unavailable');
      return reply.status(503).send(failure(ApiCode.Internal, msg('common.databaseUnavailable'), lang));
    }
    req.log.error({ err }, 'request failed');
    return reply.status(500).send(failure(ApiCode.Internal, msg('common.error'), lang));
  });

  // Before any route: the contract test reads every route's schema objects (server/http/route-registry.ts).
  registerRouteRegistry(app);
  registerJsonBody(app);
  await registerOpenApi(app);
  await registerRateLimit(app);
  registerOperationRecorder(app, { db: deps.db, clock: deps.clock });
  registerGuard(app, deps.db, deps.sessions);
  const { db, clock, sessions } = deps;
  await app.register(authRoutes, { db, clock, sessions, captcha: deps.captcha, captchaEnabled: deps.captchaEnabled, loginGuard: new LoginGuard(clock) });
  await app.register(oidcRoutes, { db, clock, sessions, rights: deps.gateway.rights, settings: deps.oidc });
  await app.register(deviceRoutes, { devices: deps.devices, devicesMoved: (sns, orgId) => deps.gateway.moveDevices(sns, orgId) });
  // Writers of roles, accounts and organisations tell the gateway's consoles what changed (live rights).
  const rights = deps.gateway.rights;
  const roles = new RoleRepository(deps.db, rights);
  await app.register(orgRoutes, { db, clock, sessions, orgs: new OrgRepository(db, rights), roles, orgCreateLimit: deps.orgCreateLimit });
  await app.register(permitRoutes, { db, clock, sessions, roles, accounts: new AdminAccountRepository(db, rights) });
  await app.register(noticeRoutes, { db, clock });
  await app.register(documentRoutes, { db, clock });
  await app.register(languageRoute, { db });
  await app.register(operationLogRoutes, { db });
  // Infrastructure the areas below share, as plugins that decorate the app and own their start and close:
  // four-eyes approval (issue 23: the console sockets, REST commands and campaigns ask it before wipes and big
  // actions), requests held to their session, the file store, and the campaign runner.
  await app.register(approvalsPlugin, { db, clock, gateway: deps.gateway });
  await app.register(liveCallersPlugin, { db, clock, sessions, gateway: deps.gateway });
  await app.register(uploadsPlugin, { clock, dataDir: deps.dataDir, limits: deps.uploadLimits });
  await app.register(campaignsPlugin, { db, clock, gateway: deps.gateway });
  await app.register(approvalRoutes);
  await app.register(uploadRoutes);
  await app.register(contentRoutes, { db, clock });
  await app.register(customOrderRoutes, { db, clock });
  await app.register(campaignRoutes, { db, clock });
  await app.register(telemetryPlugin, { db, clock, settings: deps.telemetry, gateway: deps.gateway });
  await app.register(reportRoutes, { db, clock });
  await app.register(metricsRoute, { metrics: deps.gateway.metrics });
  await app.register(deviceOpsRoutes, { db, clock, gateway: deps.gateway, log: app.log, approvals: app.approvals });
  await app.register(groupControlRoutes, { clock, gateway: deps.gateway, devices: deps.devices });
  await app.register(timelineRoutes, { db });
  await app.register(recordingRoutes, { db, clock, recordings: deps.gateway.recordings });
  await app.register(deviceGroupRoutes, { db, clock });
  await app.register(savedViewRoutes, { db, clock });
  await app.register(deviceFieldRoutes, { db, clock });
  await app.register(simRoutes, { db, clock, paymentSandbox: deps.paymentSandbox === true });
  await app.register(apiTokenRoutes, { db, clock, sessions });
  await app.register(totpRoutes, { db, clock, rights });
  // Webhooks (issue 23): events become persisted deliveries, sent by this process's dispatcher.
  await app.register(webhooksPlugin, { db, clock, gateway: deps.gateway });
  await app.register(webhookRoutes, { clock });

  app.get('/', { config: { public: true }, schema: { hide: true } }, (_req, reply) => reply.redirect(CONSOLE_BASE));
  const indexHtml = path.join(deps.consoleDir, 'index.html');
  if (fs.existsSync(indexHtml)) {
    // The build writes .br and .gz beside every text file (vite.config.ts); preCompressed sends the one the
    // browser accepts. Files under assets/ carry a content hash in their name, so they never change: cached
    // for a year without revalidation. Everything else (index.html, which names the current hashes) is
    // revalidated on every load, so a new release is picked up at once.
    const assetsDir = path.join(deps.consoleDir, 'assets') + path.sep;
    await app.register(fastifyStatic, {
      root: deps.consoleDir,
      prefix: CONSOLE_BASE,
      wildcard: false,
      // An array: with preCompressed, @fastify/static finds /user/'s index only in an array of names.
      index: ['index.html'],
      preCompressed: true,
      cacheControl: false,
      setHeaders: (reply, file) => {
        reply.header('cache-control', file.startsWith(assetsDir) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    // History-style routes: every unknown path under /user/ is the console's own.
    app.get(`${CONSOLE_BASE}*`, { config: { public: true }, schema: { hide: true } }, (_req, reply) => reply.type('text/html').sendFile('index.html'));
  } else {
    app.get(`${CONSOLE_BASE}*`, { config: { public: true }, schema: { hide: true } }, (_req, reply) =>
      reply.status(503).type('text/plain').send('The console is not built yet: run `npm run build` (npm start does this).'),
    );
  }
  return app;
}
