import * as tus from 'tus-js-client';
import type { CampaignView, PushCampaignEvent, PushStartReply, PushStartRequest, PushState, PushTargetEvent } from '../../protocol/api/campaigns.ts';
import type { MessageParams } from '../../protocol/index.ts';
import type { Page } from './devices.ts';
import { type FollowPushesOptions, followPushStream } from './push-stream.ts';
import { i18next } from '../i18n/index.ts';
import { request, serverMessage } from './request.ts';
import { session } from '../state/session.ts';

export type ContentArea = 'img' | 'app' | 'file' | 'logo' | 'wallpaper';

/** Push coupons of the caller's organisation, with the coupon orders still to pay (amounts in fen). */
export interface CouponInfo {
  readonly balance: number;
  readonly unitPrice: number;
  readonly orderTotal: number;
  readonly unpaid: readonly { readonly orderNo: string; readonly amount: number; readonly count: number; readonly offlinePending: boolean; readonly createTime: number }[];
}
export type UploadKind = 'firmware' | 'app' | 'file' | 'logo' | 'boot_animation' | 'wallpaper' | 'attachment';

/** Kind stored by each area (server/content/items.ts). */
export const KIND_OF_AREA: Readonly<Record<ContentArea, string>> = { img: 'firmware', app: 'app', file: 'file', logo: 'logo', wallpaper: 'wallpaper' };

export interface ContentItem {
  readonly id: number;
  readonly kind: string;
  readonly parentId: number | null;
  readonly name: string;
  readonly fileName: string;
  readonly remark: string;
  readonly size: number;
  readonly sha256: string;
  readonly type: string;
  readonly model: string;
  readonly modelName: string;
  readonly gnssModel: string;
  readonly source: string;
  readonly version: string;
  readonly systemType: string;
  readonly offlineInstall: boolean;
  readonly autoInstall: boolean;
  readonly packageName: string;
  readonly versionName: string;
  readonly versionCode: number;
  readonly state: number;
  readonly createTime: number;
}

/** A campaign as the push calls answer it (the contract's shape). */
export type Campaign = CampaignView;

export interface PushLogRow extends PushState {
  readonly id: number;
  readonly campaignId: number;
  readonly sn: string;
  readonly operationType: string;
  readonly contentName: string;
  readonly pushDate: number;
  readonly messageType: string;
}

/** Lines of /push-log/stream (protocol/api/campaigns.ts). */
export type TargetEvent = PushTargetEvent;
export type CampaignEvent = PushCampaignEvent;

/** Above this size the console asks for a Wi-Fi confirmation first (devices-and-commerce section 5). */
export const WIFI_CONFIRM_BYTES = 5 * 1024 * 1024;

export const contentApi = {
  list: (area: ContentArea, body: { pageNum: number; pageSize: number; name?: string; parentId?: number | null }) =>
    request<Page<ContentItem>>({ method: 'POST', url: `/${area}/list`, data: body }),
  add: (area: ContentArea, body: Record<string, unknown>) => request<ContentItem>({ method: 'POST', url: `/${area}/add`, data: body }),
  updateFirmware: (body: Record<string, unknown>) => request<ContentItem>({ method: 'POST', url: '/img/update', data: body }),
  updateApp: (id: number, uploadId: string) => request<ContentItem>({ method: 'POST', url: '/app/update', data: { id, uploadId } }),
  edit: (area: ContentArea, body: { id: number; name?: string; remark?: string }) => request<ContentItem>({ method: 'POST', url: `/${area}/edit`, data: body }),
  folder: (name: string, parentId: number | null) => request<ContentItem>({ method: 'POST', url: '/file/folder', data: { name, parentId } }),
  history: (id: number) => request<ContentItem[]>({ method: 'GET', url: `/app/history/${id}` }),
  remove: (area: ContentArea, ids: readonly number[]) => request<{ deleted: number }>({ method: 'DELETE', url: `/${area}/delete`, data: { ids } }),
  download: (area: ContentArea, id: number) => request<Blob>({ method: 'GET', url: `/${area}/download/${id}`, responseType: 'blob' }),
  startPush: (body: PushStartRequest) => request<PushStartReply>({ method: 'POST', url: '/push/start', data: body }),
  campaign: (id: number) => request<Campaign>({ method: 'GET', url: `/push/campaign/${id}` }),
  campaigns: (pageNum: number, pageSize: number) => request<Page<Campaign>>({ method: 'POST', url: '/push/campaign/list', data: { pageNum, pageSize } }),
  controlPush: (action: 'pause' | 'resume' | 'cancel' | 'approve', id: number) => request<Campaign>({ method: 'POST', url: `/push/${action}`, data: { id } }),
  pushLog: (body: { pageNum: number; pageSize: number; operationType?: string; sn?: string; campaignId?: number }) =>
    request<Page<PushLogRow>>({ method: 'POST', url: '/push-log/list', data: body }),
  coupons: () => request<CouponInfo>({ method: 'GET', url: '/push-coupon/info' }),
  /** Opens a coupon order to pay (amount in fen); the coupons are credited once it is paid. */
  recharge: (count: number) => request<{ orderNo: string; amount: number; amountText: string }>({ method: 'POST', url: '/push-coupon/recharge', data: { count } }),
  couponLedger: (pageNum: number, pageSize: number) =>
    request<Page<{ id: number; delta: number; reason: string; orderNo: string | null; amount: number; campaignId: number | null; sn: string | null; createTime: number }>>({
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

export interface UploadHandle {
  /** Resolves with the upload URL the add calls take. */
  readonly done: Promise<string>;
  abort(): void;
}

/** What an upload's connection is doing, for the dialog to say: waiting to retry, or sending again. */
export type UploadNetworkState = { readonly state: 'waiting'; readonly attempt: number } | { readonly state: 'resumed'; readonly offset: number; readonly total: number };

/**
 * Waits between attempts after a failed request: capped exponential backoff, 1 s doubling to 30 s, for about
 * a quarter of an hour in all. An upload outlives a short outage without the user doing anything; a longer
 * one ends with a message and the fingerprint kept, so choosing the same file continues it.
 */
export const UPLOAD_RETRY_DELAYS: readonly number[] = [0, 1_000, 2_000, 4_000, 8_000, 15_000, ...Array<number>(30).fill(30_000)];

/**
 * Retries a request that got no answer (network down, server restarting) or an answer that may pass (5xx,
 * 409 offset conflict, 423 locked). tus's own default also gives up while the browser says it is offline,
 * which is exactly when the upload should wait; a 4xx refusal (format, size, rights) is final.
 */
export function shouldRetryUpload(status: number | undefined): boolean {
  if (status === undefined || status === 0) return true;
  return status >= 500 || status === 409 || status === 423;
}

/**
 * A resumable upload (tus). The fingerprint of an unfinished upload is kept in localStorage, so choosing
 * the same file after a page reload continues where it stopped, and the progress bar starts there. A
 * dropped connection is retried with backoff (UPLOAD_RETRY_DELAYS) and at once when the browser reports it
 * is online again; each retry asks the server for its offset (HEAD) and sends only the rest. `onNetwork`
 * hears "waiting" when a retry is scheduled and "resumed" when bytes flow again.
 */
export function uploadFile(file: File, kind: UploadKind, onProgress: (sent: number, total: number) => void, onNetwork: (state: UploadNetworkState) => void = () => undefined): UploadHandle {
  let upload: tus.Upload | undefined;
  let waiting = false;
  let finished = false;
  const onOnline = () => {
    // Back online while a retry waits out its delay: go now. abort() clears tus's retry timer; start() with
    // the known upload URL resumes from the server's offset.
    if (!waiting || !upload || finished) return;
    const current = upload;
    void current.abort(false).then(() => current.start());
  };
  window.addEventListener('online', onOnline);
  const done = new Promise<string>((resolve, reject) => {
    const settle = () => {
      finished = true;
      window.removeEventListener('online', onOnline);
    };
    upload = new tus.Upload(file, {
      endpoint: '/upload/files',
      headers: { 'X-Token': session.token ?? '' },
      metadata: { kind, filename: file.name, filetype: file.type },
      retryDelays: [...UPLOAD_RETRY_DELAYS],
      removeFingerprintOnSuccess: true,
      chunkSize: 16 * 1024 * 1024,
      onShouldRetry: (err, attempt) => {
        const retry = shouldRetryUpload(err.originalResponse?.getStatus());
        if (retry) {
          waiting = true;
          onNetwork({ state: 'waiting', attempt: attempt + 1 });
        }
        return retry;
      },
      onProgress: (sent, total) => {
        if (waiting) {
          waiting = false;
          onNetwork({ state: 'resumed', offset: sent, total });
        }
        onProgress(sent, total);
      },
      onSuccess: () => (settle(), resolve(upload?.url ?? '')),
      onError: (err) => {
        settle();
        const response = (err as tus.DetailedError).originalResponse;
        // No answer at all: tus's text ("tus: failed to upload chunk ... [object ProgressEvent]") means nothing
        // to a user; say what happened and how to continue.
        let message = response && response.getStatus() > 0 ? err.message : i18next.t('content.uploadNetworkFailed');
        try {
          const env = JSON.parse(response?.getBody() ?? '') as { message?: string; key?: string; params?: MessageParams };
          if (env.key !== undefined || env.message !== undefined) message = serverMessage(env);
        } catch {
          // not an envelope: keep the text above
        }
        if (message.startsWith('tus:')) message = i18next.t('content.uploadFailed');
        reject(new Error(message));
      },
    });
    const started = upload;
    started.findPreviousUploads().then(
      (previous) => {
        const last = previous[0];
        if (last) started.resumeFromPreviousUpload(last);
        started.start();
      },
      () => started.start(),
    );
  });
  return {
    done,
    abort: () => {
      finished = true;
      window.removeEventListener('online', onOnline);
      void upload?.abort();
    },
  };
}

export interface CustomOrder {
  readonly id: number;
  readonly orderNo: string;
  readonly title: string;
  readonly description: string;
  readonly state: number;
  readonly amount: number;
  readonly actualAmount: number;
  readonly deadline: number | null;
  readonly attachmentId: number | null;
  readonly attachmentDescription: string;
  readonly assessment: string;
  readonly refuseReason: string;
  readonly time: number;
}
export type OrderAction = 'cancel' | 'refuse' | 'quote' | 'payOffline' | 'confirmPayment' | 'rejectPayment' | 'finishDevelopment' | 'confirmFinish';

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
  apply: (body: { title: string; description?: string; attachmentUploadId?: string; attachmentDescription?: string }) =>
    request<CustomOrder>({ method: 'POST', url: '/custom-made-img/apply', data: body }),
  step: (id: number, action: OrderAction, extra: { amount?: number; assessment?: string; refuseReason?: string } = {}) =>
    request<CustomOrder>({ method: 'POST', url: '/custom-made-img/transition', data: { id, action, ...extra } }),
};
