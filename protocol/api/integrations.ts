// API tokens and webhooks (issue 23): request schemas written with TypeBox, their types derived, and the
// answers' shapes: one definition for both sides.
import { type Static, Type } from 'typebox';
import { EpochMs, Id, IdPath } from './common.ts';

/** POST /api-token/create: a name, the keys the token holds (a subset of the caller's), when it expires. */
/** The longest API token name. */
export const MAX_TOKEN_NAME = 64;

export const CreateApiTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_TOKEN_NAME }),
    keys: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 200 }),
    expiresAt: Type.Optional(EpochMs),
  },
  { additionalProperties: false },
);
export type CreateApiTokenBody = Static<typeof CreateApiTokenBody>;

/** DELETE /api-token/:id and /webhook/:id. */
export const IntegrationPath = IdPath;

/** One API token of the caller's account; the token itself is shown only by /api-token/create. */
export interface ApiTokenView {
  readonly id: number;
  readonly name: string;
  readonly keys: readonly string[];
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
  readonly createdAt: number;
}

export interface ApiTokenCreated {
  /** Shown once: only its SHA-256 is stored. */
  readonly token: string;
  readonly id: number;
  readonly accountId: number;
  readonly orgId: number;
}

/** The events a webhook may subscribe to. */
export const WEBHOOK_EVENTS = [
  'device.online',
  'device.offline',
  'command.result',
  'campaign.finished',
  'campaign.halted',
  'abnormal.raised',
  'order.paid',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export function isWebhookEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

/** A webhook of the caller's organisation (its secret is never sent back). */
export interface WebhookView {
  readonly id: number;
  readonly orgId: number;
  readonly url: string;
  readonly events: readonly WebhookEvent[];
  readonly createdAt: number;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryView {
  readonly id: number;
  readonly webhookId: number;
  readonly event: string;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  /** HTTP status of the last attempt; null when it got no answer. */
  readonly statusCode: number | null;
  readonly latencyMs: number | null;
  readonly error: string;
  readonly createdAt: number;
  readonly nextAttemptAt: number;
  readonly finishedAt: number | null;
  /** The JSON body as signed and sent. */
  readonly body: string;
}

/** The JSON body of every delivery. */
export interface WebhookPayload<T = unknown> {
  /** Unique per event (a redelivery repeats it), for receivers to drop duplicates. */
  readonly id: string;
  readonly event: WebhookEvent;
  /** Epoch milliseconds of the event. */
  readonly time: number;
  readonly orgId: number;
  readonly data: T;
}

/** POST /webhook/add. */
/** The longest webhook URL and secret. */
export const MAX_WEBHOOK_URL = 2000;
export const MAX_WEBHOOK_SECRET = 256;

export const AddWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: MAX_WEBHOOK_URL }),
    secret: Type.String({ minLength: 1, maxLength: MAX_WEBHOOK_SECRET }),
    events: Type.Array(Type.Unsafe<WebhookEvent>({ type: 'string', enum: [...WEBHOOK_EVENTS] }), { minItems: 1, maxItems: WEBHOOK_EVENTS.length }),
  },
  { additionalProperties: false },
);
export type AddWebhookBody = Static<typeof AddWebhookBody>;

/** POST /webhook/deliveries: the newest deliveries, of one webhook or all. */
export const WebhookDeliveriesBody = Type.Object(
  { webhookId: Type.Optional(Id), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
  { additionalProperties: false },
);
export type WebhookDeliveriesBody = Static<typeof WebhookDeliveriesBody>;

/** POST /webhook/redeliver: one delivery, again. */
export const RedeliverBody = Type.Object({ id: Id }, { additionalProperties: false });
export type RedeliverBody = Static<typeof RedeliverBody>;
