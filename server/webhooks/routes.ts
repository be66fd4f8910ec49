import type { FastifyInstance } from 'fastify';
import { msg } from '../../protocol/index.ts';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../../protocol/api/integrations.ts';
import type { Caller } from '../accounts/caller.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { idOf, idParams } from '../http/validation.ts';
import type { Webhooks } from './dispatcher.ts';
import type { Clock } from '../../protocol/index.ts';

/** Permission key of webhook management (ours, issue 23). */
export const WEBHOOK_PERMISSION = 'webhook_manage';

const addBody = {
  type: 'object',
  required: ['url', 'secret', 'events'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2000 },
    secret: { type: 'string', minLength: 1, maxLength: 256 },
    events: { type: 'array', minItems: 1, maxItems: WEBHOOK_EVENTS.length, items: { type: 'string', enum: [...WEBHOOK_EVENTS] } },
  },
} as const;

const deliveriesBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    webhookId: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 500 },
  },
} as const;

const redeliverBody = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'integer', minimum: 1 } },
} as const;

function httpUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ApiError(ApiCode.BadRequest, 'webhook.badUrl');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError(ApiCode.BadRequest, 'webhook.badUrl');
  return url.toString();
}

/** A hook the caller may manage: one of its scope's, else "does not exist". */
function inScope(caller: Caller, orgId: number | undefined): number {
  if (orgId === undefined || !caller.scope.has(orgId)) throw new ApiError(ApiCode.NotFound, msg('webhook.notFound'));
  return orgId;
}

/**
 * Webhooks (issue 23): hooks belong to the caller's organisation; a caller manages the hooks of its
 * scope and sees their deliveries.
 */
export function registerWebhookRoutes(app: FastifyInstance, deps: { webhooks: Webhooks; clock: Clock }): void {
  const repo = deps.webhooks.repository;
  const config = { permission: WEBHOOK_PERMISSION };

  app.post<{ Body: { url: string; secret: string; events: string[] } }>('/webhook/add', { config, schema: { body: addBody } }, async (req) => {
    const caller = callerOf(req);
    const url = httpUrl(req.body.url);
    const events = [...new Set(req.body.events)].filter(isWebhookEvent) as WebhookEvent[];
    if (events.length === 0) throw new ApiError(ApiCode.BadRequest, 'webhook.noEvents');
    const id = await repo.add(caller.orgId, caller.accountId, url, req.body.secret, events, deps.clock.now());
    deps.webhooks.hooksChanged();
    return ok({ id });
  });

  app.post('/webhook/list', { config }, async (req) => ok(await repo.list(callerOf(req).scope)));

  app.post<{ Body: { webhookId?: number; limit?: number } }>('/webhook/deliveries', { config, schema: { body: deliveriesBody } }, async (req) => {
    const caller = callerOf(req);
    const body = req.body ?? {};
    if (body.webhookId !== undefined) inScope(caller, await repo.orgOf(body.webhookId));
    return ok(await repo.deliveries(caller.scope, body.webhookId, body.limit ?? 100));
  });

  app.post<{ Body: { id: number } }>('/webhook/redeliver', { config, schema: { body: redeliverBody } }, async (req) => {
    const caller = callerOf(req);
    const delivery = await repo.deliveryOrg(req.body.id);
    inScope(caller, delivery?.orgId);
    if (!delivery) throw new ApiError(ApiCode.NotFound, msg('webhook.notFound'));
    await deps.webhooks.redeliver(delivery.webhookId, delivery.orgId, delivery.event, delivery.body);
    return ok(null);
  });

  app.delete<{ Params: { id: string } }>('/webhook/:id', { config, schema: { params: idParams('id') } }, async (req) => {
    const id = idOf(req.params.id);
    inScope(callerOf(req), await repo.orgOf(id));
    await repo.remove(id);
    deps.webhooks.hooksChanged();
    return ok(null);
  });
}
