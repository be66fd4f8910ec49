import type { TotpEnabled, TotpSetup, TotpStatus } from '../../protocol/api/auth.ts';
import type { AddWebhookBody, ApiTokenCreated, ApiTokenView, CreateApiTokenBody, WebhookDeliveryView, WebhookView } from '../../protocol/api/integrations.ts';
import { request } from './request.ts';

/** The caller's own API tokens (issue 23). */
export const apiTokenApi = {
  // Silent: the token form shows a failure on its field or as its toast.
  create: (input: CreateApiTokenBody) => request<ApiTokenCreated>({ method: 'POST', url: '/api-token/create', data: input, silent: true }),
  list: () => request<ApiTokenView[]>({ method: 'POST', url: '/api-token/list', data: {} }),
  revoke: (id: number) => request<null>({ method: 'DELETE', url: `/api-token/${id}` }),
};

/** Webhooks of the caller's organisation and their delivery log (webhook_manage). */
export const webhookApi = {
  // Silent: the webhook form shows a failure on its field or as its toast.
  add: (input: AddWebhookBody) => request<{ id: number }>({ method: 'POST', url: '/webhook/add', data: input, silent: true }),
  list: () => request<WebhookView[]>({ method: 'POST', url: '/webhook/list', data: {} }),
  deliveries: (webhookId?: number) => request<WebhookDeliveryView[]>({ method: 'POST', url: '/webhook/deliveries', data: webhookId === undefined ? {} : { webhookId } }),
  redeliver: (id: number) => request<null>({ method: 'POST', url: '/webhook/redeliver', data: { id } }),
  remove: (id: number) => request<null>({ method: 'DELETE', url: `/webhook/${id}` }),
};

/** The caller's own TOTP second factor (issue 23). */
export const totpApi = {
  status: () => request<TotpStatus>({ method: 'POST', url: '/totp/status', data: {} }),
  setup: () => request<TotpSetup>({ method: 'POST', url: '/totp/setup', data: {} }),
  enable: (code: string) => request<TotpEnabled>({ method: 'POST', url: '/totp/enable', data: { code } }),
  disable: (code: string) => request<null>({ method: 'POST', url: '/totp/disable', data: { code } }),
  /** An organisation's policy (key org_list, inside the caller's scope). */
  setPolicy: (orgId: number, required: boolean) => request<null>({ method: 'POST', url: '/org/totp-policy', data: { orgId, required } }),
};
