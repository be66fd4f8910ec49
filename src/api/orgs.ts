import type { Page } from './devices.ts';
import { request } from './request.ts';

/** An organisation as /org/list returns it. */
export interface Organization {
  readonly id: number;
  readonly parentId: number | null;
  readonly name: string;
  readonly alias: string;
  readonly account: string;
  readonly accountId: number | null;
  readonly contactPerson: string;
  readonly phone: string;
  readonly email: string;
  readonly remark: string;
  readonly publicKey: string;
  readonly customerType: number;
  readonly roleId: number | null;
  readonly role: string;
  readonly expireTime: number | null;
  readonly createdAt: number;
  readonly freezeState: number;
  /** Device counts of its whole subtree. */
  readonly total: number;
  readonly online: number;
  readonly offline: number;
}

/** The detail view adds the enrolment key. */
export interface OrganizationDetail extends Organization {
  readonly enrollKey: string;
}

/** Descriptive fields /org/update takes, all optional. */
export interface OrgChanges {
  readonly name?: string;
  readonly alias?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly remark?: string;
  readonly contactPerson?: string;
  readonly publicKey?: string;
  readonly expireTime?: number | null;
  readonly customerType?: number;
  readonly roleId?: number;
}

export type OrgSortKey = 'id' | 'name' | 'createdAt' | 'expireTime';
export interface OrgListQuery {
  readonly pageNum: number;
  readonly pageSize: number;
  readonly name?: string | undefined;
  readonly orderBy?: OrgSortKey | undefined;
  readonly order?: 'asc' | 'desc' | undefined;
}

export interface DeviceTotals {
  readonly total: number;
  readonly online: number;
  readonly offline: number;
}

export interface NewOrganization {
  readonly parentId?: number;
  readonly name: string;
  readonly account: string;
  /** SHA-256 hex of the typed password. */
  readonly password: string;
  /** The login account's role, one of {@link orgApi.loginRoles}. */
  readonly roleId: number;
  readonly contactPerson?: string;
  readonly phone?: string;
  readonly email?: string;
  readonly remark?: string;
  readonly alias?: string;
  readonly publicKey?: string;
  readonly expireTime?: number | null;
  readonly customerType?: number;
}

/** A role the caller may give a new organisation's login account. */
export interface LoginRole {
  readonly id: number;
  readonly name: string;
  readonly summary: string;
}

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
  kickOut: (accountId: number) => request<{ sessions: number }>({ method: 'GET', url: `/org/kitoutUser/${accountId}` }),
};
