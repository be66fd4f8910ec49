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
  readonly freezeState: number;
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
}

/** A role the caller may give a new organisation's login account. */
export interface LoginRole {
  readonly id: number;
  readonly name: string;
  readonly summary: string;
}

export const orgApi = {
  list: (pageNum: number, pageSize: number, name?: string) => request<Page<Organization>>({ method: 'POST', url: '/org/list', data: { pageNum, pageSize, ...(name ? { name } : {}) } }),
  loginRoles: () => request<LoginRole[]>({ method: 'GET', url: '/org/loginRoles' }),
  add: (org: NewOrganization) => request<{ id: number }>({ method: 'POST', url: '/org/add', data: org }),
  freeze: (id: number, freezeState: 1 | 2) => request<unknown>({ method: 'POST', url: '/org/freeze', data: { id, freezeState } }),
  remove: (id: number) => request<unknown>({ method: 'DELETE', url: '/org/del', data: { id } }),
  resetPassword: (id: number, password: string) => request<unknown>({ method: 'POST', url: '/org/restpassword', data: { id, password } }),
  kickOut: (accountId: number) => request<unknown>({ method: 'GET', url: `/org/kitoutUser/${accountId}` }),
};
