import type { ConsoleQuery } from '../../protocol/api/common.ts';
import type { AddOrgBody, DeviceTotals, KickedOut, LoginRole, OrgChanges, OrgDetail, OrgListBody, OrgSortKey, OrgView } from '../../protocol/api/orgs.ts';
import type { Page } from './devices.ts';
import { request } from './request.ts';

// Shapes of the organisation calls: protocol/api/orgs.ts.
export type { DeviceTotals, LoginRole, OrgChanges, OrgSortKey };
/** An organisation as /org/list returns it. */
export type Organization = OrgView;
/** The detail view adds the enrolment key. */
export type OrganizationDetail = OrgDetail;
/** The list's body, the page as numbers. */
export type OrgListQuery = ConsoleQuery<OrgListBody>;
export type NewOrganization = AddOrgBody;

export const orgApi = {
  list: (pageNum: number, pageSize: number, name?: string) => request<Page<Organization>>({ method: 'POST', url: '/org/list', data: { pageNum, pageSize, ...(name ? { name } : {}) } }),
  /** The list with sorting (the organisation page's table). */
  query: (q: OrgListQuery) => request<Page<Organization>>({ method: 'POST', url: '/org/list', data: { ...q, name: q.name || undefined } }),
  get: (id: number) => request<OrganizationDetail>({ method: 'GET', url: `/org/getOrg/${id}` }),
  update: (id: number, changes: OrgChanges, silent = false) => request<OrganizationDetail>({ method: 'POST', url: '/org/update', data: { id, ...changes }, silent }),
  report: (id: number) => request<DeviceTotals>({ method: 'GET', url: `/org/report/${id}` }),
  allOnline: () => request<number>({ method: 'GET', url: '/org/allOnline' }),
  loginRoles: () => request<LoginRole[]>({ method: 'GET', url: '/org/loginRoles' }),
  add: (org: NewOrganization, silent = false) => request<{ id: number }>({ method: 'POST', url: '/org/add', data: org, silent }),
  freeze: (id: number, freezeState: 1 | 2) => request<unknown>({ method: 'POST', url: '/org/freeze', data: { id, freezeState } }),
  remove: (id: number) => request<unknown>({ method: 'DELETE', url: '/org/del', data: { id } }),
  /** `password` is the SHA-256 hex of the new password. */
  resetPassword: (id: number, password: string, silent = false) => request<unknown>({ method: 'POST', url: '/org/restpassword', data: { id, password }, silent }),
  kickOut: (accountId: number) => request<KickedOut>({ method: 'GET', url: `/org/kitoutUser/${accountId}` }),
};
