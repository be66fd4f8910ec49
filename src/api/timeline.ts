import type { Page } from '../../protocol/api/devices.ts';
import type { TimelineBody, TimelineEntry } from '../../protocol/api/timeline.ts';
import { request } from './request.ts';

export type { TimelineEntry };

export const timelineApi = {
  /** One page of a device's timeline, newest first (issue 22). */
  list: (body: TimelineBody) => request<Page<TimelineEntry>>({ method: 'POST', url: '/device/timeline', data: body }),
};

export const recordingApi = {
  /** A recorded session's asciicast v2 file (issue 22). */
  download: (id: string) => request<Blob>({ method: 'GET', url: `/recording/${encodeURIComponent(id)}/download`, responseType: 'blob' }),
};
