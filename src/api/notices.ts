import type { Page } from './devices.ts';
import type { MessageParams } from '../../protocol/index.ts';
import { notifications } from '../layout/toast.ts';
import { session } from '../state/session.ts';
import { RequestError, request, serverMessage, TOAST_MS } from './request.ts';

/** A notice as delivered to the current user. `id` is the delivery; `noticeId` the notice. */
export interface Notice {
  readonly id: number;
  readonly noticeId: number;
  readonly title: string;
  /** HTML, sanitised by the server on publish. */
  readonly content: string;
  readonly sendTime: number;
  readonly sendUserDeptName: string;
  readonly sendUserName: string;
  readonly fileUrls: readonly string[];
  readonly files?: readonly NoticeAttachment[];
  readonly isRead: boolean;
}

export const noticeApi = {
  page: (pageNum: number, pageSize: number) => request<Page<Notice>>({ method: 'GET', url: '/notice/page', params: { pageNum, pageSize } }),
  detail: (id: number) => request<Notice>({ method: 'GET', url: `/notice/detail/${id}` }),
  read: (noticeIds: readonly number[]) => request<unknown>({ method: 'POST', url: '/notice/read', data: { noticeIds } }),
  readAll: () => request<unknown>({ method: 'GET', url: '/notice/read-all' }),
  remove: (noticeIds: readonly number[]) => request<unknown>({ method: 'DELETE', url: '/notice/delete', data: { noticeIds } }),
  removeAll: () => request<unknown>({ method: 'DELETE', url: '/notice/delete-all' }),
  // Polled in the background: a failure must not toast every minute.
  unreadCount: () => request<number>({ method: 'GET', url: '/notice/unreadNoticeCount', silent: true }),
};

/** An uploaded attachment; `url` downloads it with the session header. */
export interface NoticeAttachment {
  readonly id: number;
  readonly name: string;
  readonly size: number;
  readonly url: string;
}

/** A published notice as its authors list it. */
export interface SentNotice {
  readonly id: number;
  readonly title: string;
  readonly content: string;
  readonly sendTime: number;
  /** 0 scheduled, 1 delivered. */
  readonly state: number;
  readonly toAll: boolean;
  readonly orgIds: readonly number[];
  readonly recipients: number;
  readonly readCount: number;
  readonly sendUserName: string;
  readonly sendUserDeptName: string;
  readonly files: readonly NoticeAttachment[];
}

export interface NewNotice {
  readonly title: string;
  /** HTML; the server sanitises it. */
  readonly content: string;
  /** Absent: every organisation in the author's subtree. */
  readonly orgIds?: readonly number[];
  /** Epoch ms; absent or past sends at once. */
  readonly sendTime?: number;
  readonly attachmentIds?: readonly number[];
}

/** Largest attachment the server takes (platform-core section 9: 5 MB). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

export const noticeAuthoringApi = {
  sent: (pageNum: number, pageSize: number) => request<Page<SentNotice>>({ method: 'POST', url: '/notice/sent-list', data: { pageNum, pageSize } }),
  publish: (notice: NewNotice) => request<{ id: number; recipients: number; state: number }>({ method: 'POST', url: '/notice/publish', data: notice }),
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
