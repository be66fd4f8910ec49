import type { ApprovalCount, ApprovalListBody, ApprovalPolicy, ApprovalPolicyBody, ApprovalRejectBody, ApprovalView } from '../../protocol/api/approvals.ts';
import type { Page } from '../../protocol/api/devices.ts';
import { request } from './request.ts';

export type { ApprovalCount, ApprovalPolicy, ApprovalView };

export const approvalApi = {
  /** Requests the caller may decide and its own, newest first (issue 23). */
  list: (body: ApprovalListBody) => request<Page<ApprovalView>>({ method: 'POST', url: '/approval/list', data: body }),
  /** The sidebar badge: pending requests the caller may decide, and its own pending ones. */
  count: () => request<ApprovalCount>({ method: 'POST', url: '/approval/count', silent: true }),
  approve: (id: number) => request<ApprovalView>({ method: 'POST', url: `/approval/${id}/approve` }),
  reject: (id: number, reason: string) => request<ApprovalView>({ method: 'POST', url: `/approval/${id}/reject`, data: (reason ? { reason } : {}) satisfies ApprovalRejectBody }),
  policy: (orgId: number) => request<ApprovalPolicy>({ method: 'GET', url: `/approval/policy/${orgId}`, silent: true }),
  /** Silent: the policy form shows its failures itself. */
  setPolicy: (body: ApprovalPolicyBody) => request<null>({ method: 'POST', url: '/approval/policy', data: body, silent: true }),
};
