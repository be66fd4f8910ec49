import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { msg } from '../../protocol/index.ts';
import { AddWebhookBody, IntegrationPath, isWebhookEvent, RedeliverBody, WebhookDeliveriesBody, type WebhookEvent } from '../../protocol/api/integrations.ts';
import type { Caller } from '../accounts/caller.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { idOf } from '../http/validation.ts';
import type { Clock } from '../../protocol/index.ts';

/** Permission key of webhook management (ours, issue 23). */
export const WEBHOOK_PERMISSION = 'webhook_manage';

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
export async function webhookRoutes(app: FastifyInstance, deps: { readonly clock: Clock }): Promise<void> {
  // The dispatcher is the webhooks plugin's (server/webhooks/plugin.ts), registered before these routes.
  const { webhooks } = app;
  const repo = webhooks.repository;
  const config = { permission: WEBHOOK_PERMISSION };
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/webhook/add', { config, schema: { body: AddWebhookBody } }, async (req) => {
    const caller = callerOf(req);
    const url = httpUrl(req.body.url);
    const events: WebhookEvent[] = [...new Set(req.body.events)].filter(isWebhookEvent);
    if (events.length === 0) throw new ApiError(ApiCode.BadRequest, 'webhook.noEvents');
    const id = await repo.add(caller.orgId, caller.accountId, url, req.body.secret, events, deps.clock.now());
    webhooks.hooksChanged();
    return ok({ id });
  });

  app.post('/webhook/list', { config }, async (req) => ok(await repo.list(callerOf(req).scope)));

  api.post('/webhook/deliveries', { config, schema: { body: WebhookDeliveriesBody } }, async (req) => {
    const caller = callerOf(req);
    const body = req.body ?? {};
    if (body.webhookId !== undefined) inScope(caller, await repo.orgOf(body.webhookId));
    return ok(await repo.deliveries(caller.scope, body.webhookId, body.limit ?? 100));
  });

  api.post('/webhook/redeliver', { config, schema: { body: RedeliverBody } }, async (req) => {
    const caller = callerOf(req);
    const delivery = await repo.deliveryOrg(req.body.id);
    inScope(caller, delivery?.orgId);
    if (!delivery) throw new ApiError(ApiCode.NotFound, msg('webhook.notFound'));
    await webhooks.redeliver(delivery.webhookId, delivery.orgId, delivery.event, delivery.body);
    return ok(null);
  });

  api.delete('/webhook/:id', { config, schema: { params: IntegrationPath } }, async (req) => {
    const id = idOf(req.params.id);
    inScope(callerOf(req), await repo.orgOf(id));
    await repo.remove(id);
    webhooks.hooksChanged();
    return ok(null);
  });
}
