import type { PageSize } from '../../protocol/api/common.ts';
import type { Page } from '../../protocol/api/devices.ts';
import { type AttachmentView, MAX_ATTACHMENT_BYTES, type NoticeIdsBody, type NoticeView, type PublishedNotice, type PublishNoticeBody, type SentListBody, type SentNotice } from '../../protocol/api/notices.ts';
import type { MessageParams } from '../../protocol/index.ts';
import { notifications } from '../layout/toast.ts';
import { session } from '../state/session.ts';
import { RequestError, request, serverMessage, TOAST_MS } from './request.ts';

/** A notice as delivered to the current user (protocol/api/notices.ts). `id` is the delivery; `noticeId` the notice. */
export type Notice = NoticeView;
/** An uploaded attachment; `url` downloads it with the session header. */
export type NoticeAttachment = AttachmentView;
/** The publish call's body. */
export type NewNotice = PublishNoticeBody;
export type { SentNotice };
export { MAX_ATTACHMENT_BYTES };

export const noticeApi = {
  page: (pageNum: number, pageSize: number) => request<Page<Notice>>({ method: 'GET', url: '/notice/page', params: { pageNum, pageSize } }),
  detail: (id: number) => request<Notice>({ method: 'GET', url: `/notice/detail/${id}` }),
  read: (noticeIds: readonly number[]) => request<unknown>({ method: 'POST', url: '/notice/read', data: { noticeIds: [...noticeIds] } satisfies NoticeIdsBody }),
  readAll: () => request<unknown>({ method: 'GET', url: '/notice/read-all' }),
  remove: (noticeIds: readonly number[]) => request<unknown>({ method: 'DELETE', url: '/notice/delete', data: { noticeIds: [...noticeIds] } satisfies NoticeIdsBody }),
  removeAll: () => request<unknown>({ method: 'DELETE', url: '/notice/delete-all' }),
  // Polled in the background: a failure must not toast every minute.
  unreadCount: () => request<number>({ method: 'GET', url: '/notice/unreadNoticeCount', silent: true }),
};

export const noticeAuthoringApi = {
  sent: (pageNum: number, pageSize: PageSize) => request<Page<SentNotice>>({ method: 'POST', url: '/notice/sent-list', data: { pageNum, pageSize } satisfies SentListBody }),
  publish: (notice: NewNotice) => request<PublishedNotice>({ method: 'POST', url: '/notice/publish', data: notice }),
  withdraw: (id: number) => request<null>({ method: 'DELETE', url: `/notice/withdraw/${id}` }),
  download: (url: string) => request<Blob>({ method: 'GET', url, responseType: 'blob' }),
  /**
   * Uploads one file as multipart form data. The shared client sends JSON only, so this call makes its own
   * fetch with the same token header and envelope check.
   */
  async upload(file: File): Promise<NoticeAttachment> {
    const form = new FormData();
    form.append('file', file, file.name);
    const headers: Record<string, string> = session.token ? { 'X-Token': session.token } : {};
    let env: { code?: number; data?: NoticeAttachment; message?: string; key?: string; params?: MessageParams };
    try {
      env = (await (await fetch('/notice/attachment', { method: 'POST', headers, body: form })).json()) as typeof env;
    } catch {
      throw new RequestError('Network Error');
    }
    if (env.code !== 20000 || !env.data) {
      const message = serverMessage(env);
      notifications.show({ color: 'red', message, autoClose: TOAST_MS });
      throw new RequestError(message, env.code);
    }
    return env.data;
  },
};
