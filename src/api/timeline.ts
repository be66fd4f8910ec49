import type { Page } from '../../protocol/api/devices.ts';
import type { RecordingDetail, RecordingListBody, RecordingPolicyBody, RecordingPolicyView, RecordingPurpose, RecordingView, TimelineBody, TimelineEntry } from '../../protocol/api/timeline.ts';
import { request } from './request.ts';

export type { RecordingDetail, RecordingView, TimelineEntry };

export const timelineApi = {
  /** One page of a device's timeline, newest first (issue 22). */
  list: (body: TimelineBody) => request<Page<TimelineEntry>>({ method: 'POST', url: '/device/timeline', data: body }),
};

export const recordingApi = {
  /** A recorded session's file (issue 22): a shell's asciicast v2, a live view's MP4. Each fetch is noted as a view of it. */
  download: (id: string, purpose: RecordingPurpose = 'download') =>
    request<Blob>({ method: 'GET', url: `/recording/${encodeURIComponent(id)}/download`, params: { purpose }, responseType: 'blob' }),
  /** One recording and who watched it. */
  detail: (id: string) => request<RecordingDetail>({ method: 'POST', url: '/recording/detail', data: { id } }),
  /** Recorded sessions of the caller's organisations, newest first. */
  list: (body: RecordingListBody) => request<Page<RecordingView>>({ method: 'POST', url: '/recording/list', data: body }),
  /** An organisation's recording policy. */
  policyOf: (orgId: number) => request<RecordingPolicyView>({ method: 'POST', url: '/recording/policy-of', data: { orgId } }),
  /** Sets an organisation's recording policy. */
  setPolicy: (body: RecordingPolicyBody) => request<null>({ method: 'POST', url: '/recording/policy', data: body }),
};
