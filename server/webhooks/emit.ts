import type { WebhookEvent } from '../../protocol/api/integrations.ts';
import type { Db } from '../db/database.ts';

/** What an event source needs of the webhooks: one call, never throwing, never waiting. */
export interface WebhookSink {
  emit(orgId: number, event: WebhookEvent, data: unknown): void;
}

// The webhooks of each server instance, by its database handle: event sources (campaign runner, telemetry
// ingest, order settlement, console sockets) already hold the handle, so they reach their own server's
// webhooks with one line and no new dependency threaded through their constructors. Several nodes in one
// test process have distinct handles, so each event goes to its own node's dispatcher only.
const sinks = new WeakMap<Db, WebhookSink>();

export function registerWebhookSink(db: Db, sink: WebhookSink): () => void {
  sinks.set(db, sink);
  return () => {
    if (sinks.get(db) === sink) sinks.delete(db);
  };
}

/** Raises a webhook event of organisation `orgId` on the server that owns `db` (nothing when it has no webhooks). */
export function emitWebhook(db: Db, orgId: number, event: WebhookEvent, data: unknown): void {
  sinks.get(db)?.emit(orgId, event, data);
}
