import type { Page } from './devices.ts';
import { request } from './request.ts';

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
