import type { Generated } from 'kysely';

// Table types of webhooks (migration 0015-api-tokens-and-webhooks); joined into Database in server/db/schema.ts.

export interface WebhookTable {
  id: Generated<number>;
  org_id: number;
  url: string;
  /** The HMAC key, kept as given: signing needs it (docs/DECISIONS.md, "Webhooks"). */
  secret: string;
  /** Comma-separated event names. */
  events: string;
  account_id: number | null;
  created_at: number;
}

export interface WebhookDeliveryTable {
  id: Generated<number>;
  webhook_id: number;
  org_id: number;
  event: string;
  /** The JSON body exactly as signed and sent. */
  body: string;
  /** pending | delivered | failed */
  status: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: Generated<string>;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookTables {
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
}
