import type { CouponInfo, CouponLedgerEntry, CampaignView, PushCampaignEvent, PushLogEntry, PushStartReply, PushStartRequest, PushTargetEvent, RechargeOrder } from '../../protocol/api/campaigns.ts';
import type { ApplyCustomOrderBody, ContentAreaPath, ContentItemView, ContentListBody, CustomOrderAction, CustomOrderView, DeletedItems, EditContentBody } from '../../protocol/api/content.ts';
import type { Page } from './devices.ts';
import { type FollowPushesOptions, followPushStream } from './push-stream.ts';
import { request } from './request.ts';
import { session } from '../state/session.ts';

// Shapes of the content calls: protocol/api/content.ts (push campaigns and coupons: campaigns.ts).
export type ContentArea = ContentAreaPath;
export type { CouponInfo };
export { UPLOAD_RETRY_DELAYS, uploadFile } from './upload-file.ts';
export type { UploadHandle, UploadKind, UploadNetworkState } from './upload-file.ts';

/** Kind stored by each area (server/content/items.ts). */
export const KIND_OF_AREA: Readonly<Record<ContentArea, string>> = { img: 'firmware', app: 'app', file: 'file', logo: 'logo', wallpaper: 'wallpaper' };

/** An item of an area as the content calls answer it. */
export type ContentItem = ContentItemView;
/** A campaign as the push calls answer it (the contract's shape). */
export type Campaign = CampaignView;
/** A row of the push log. */
export type PushLogRow = PushLogEntry;

/** Lines of /push-log/stream (protocol/api/campaigns.ts). */
export type TargetEvent = PushTargetEvent;
export type CampaignEvent = PushCampaignEvent;

/** Above this size the console asks for a Wi-Fi confirmation first (devices-and-commerce section 5). */
export const WIFI_CONFIRM_BYTES = 5 * 1024 * 1024;

export const contentApi = {
  // add, update and edit are form calls: the dialog shows a refusal on its field (or as a toast).
  list: (area: ContentArea, body: ContentListBody) =>
    request<Page<ContentItem>>({ method: 'POST', url: `/${area}/list`, data: body }),
  add: (area: ContentArea, body: Record<string, unknown>) => request<ContentItem>({ method: 'POST', url: `/${area}/add`, data: body, silent: true }),
  updateFirmware: (body: Record<string, unknown>) => request<ContentItem>({ method: 'POST', url: '/img/update', data: body, silent: true }),
  updateApp: (id: number, uploadId: string) => request<ContentItem>({ method: 'POST', url: '/app/update', data: { id, uploadId }, silent: true }),
  edit: (area: ContentArea, body: EditContentBody) => request<ContentItem>({ method: 'POST', url: `/${area}/edit`, data: body, silent: true }),
  folder: (name: string, parentId: number | null) => request<ContentItem>({ method: 'POST', url: '/file/folder', data: { name, parentId } }),
  history: (id: number) => request<ContentItem[]>({ method: 'GET', url: `/app/history/${id}` }),
  remove: (area: ContentArea, ids: readonly number[]) => request<DeletedItems>({ method: 'DELETE', url: `/${area}/delete`, data: { ids } }),
  download: (area: ContentArea, id: number) => request<Blob>({ method: 'GET', url: `/${area}/download/${id}`, responseType: 'blob' }),
  startPush: (body: PushStartRequest) => request<PushStartReply>({ method: 'POST', url: '/push/start', data: body }),
  campaign: (id: number) => request<Campaign>({ method: 'GET', url: `/push/campaign/${id}` }),
  campaigns: (pageNum: number, pageSize: number) => request<Page<Campaign>>({ method: 'POST', url: '/push/campaign/list', data: { pageNum, pageSize } }),
  controlPush: (action: 'pause' | 'resume' | 'cancel' | 'approve', id: number) => request<Campaign>({ method: 'POST', url: `/push/${action}`, data: { id } }),
  pushLog: (body: { pageNum: number; pageSize: number; operationType?: string; sn?: string; campaignId?: number }) =>
    request<Page<PushLogRow>>({ method: 'POST', url: '/push-log/list', data: body }),
  coupons: () => request<CouponInfo>({ method: 'GET', url: '/push-coupon/info' }),
  /** Opens a coupon order to pay (amount in fen); the coupons are credited once it is paid. */
  recharge: (count: number) => request<RechargeOrder>({ method: 'POST', url: '/push-coupon/recharge', data: { count } }),
  couponLedger: (pageNum: number, pageSize: number) =>
    request<Page<CouponLedgerEntry>>({
      method: 'POST',
      url: '/push-coupon/ledger',
      data: { pageNum, pageSize },
    }),
};

export type { FollowPushesOptions, PushStreamStatus } from './push-stream.ts';

/**
 * Follows live push changes (newline-delimited JSON from /push-log/stream) until `signal` aborts,
 * reconnecting with backoff when the stream drops. fetch rather than EventSource, because the session
 * travels in the X-Token header.
 */
export function followPushes(campaignId: number | undefined, onEvent: (e: TargetEvent | CampaignEvent) => void, signal: AbortSignal, options: FollowPushesOptions = {}): Promise<void> {
  const url = `/push-log/stream${campaignId ? `?campaignId=${campaignId}` : ''}`;
  return followPushStream((s) => fetch(url, { headers: { 'X-Token': session.token ?? '' }, signal: s }), onEvent, signal, options);
}

/** A custom firmware order (amounts in yuan) and its steps. */
export type CustomOrder = CustomOrderView;
export type OrderAction = CustomOrderAction;

/** Steps allowed from each state (server/content/custom-orders.ts is the authority; this only hides buttons). */
export const ORDER_ACTIONS_FROM: Readonly<Record<number, readonly OrderAction[]>> = {
  0: ['quote', 'refuse', 'cancel'],
  6: ['payOffline', 'cancel'],
  7: ['confirmPayment', 'rejectPayment'],
  3: ['finishDevelopment'],
  4: ['confirmFinish'],
};

export const customOrderApi = {
  list: (pageNum: number, pageSize: number) => request<Page<CustomOrder>>({ method: 'POST', url: '/custom-made-img/list', data: { pageNum, pageSize } }),
  apply: (body: ApplyCustomOrderBody) =>
    // Silent: the apply form shows a failure on its field or as its toast.
    request<CustomOrder>({ method: 'POST', url: '/custom-made-img/apply', data: body, silent: true }),
  step: (id: number, action: OrderAction, extra: { amount?: number; assessment?: string; refuseReason?: string } = {}) =>
    // Silent: the step form shows a failure as its toast.
    request<CustomOrder>({ method: 'POST', url: '/custom-made-img/transition', data: { id, action, ...extra }, silent: true }),
};
