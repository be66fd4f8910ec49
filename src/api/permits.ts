import type { Page } from './devices.ts';
import { request } from './request.ts';

/** One catalogued permission as /permit/getAllPermits returns it (label in the caller's language). */
export interface PermitEntry {
  readonly id: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly label: string;
}

/** A role as /permit/getRoleList and /permit/getAllRole return it. */
export interface Role {
  readonly id: number;
  readonly name: string;
  readonly summary: string;
  /** Account name of the creator; empty for seeded roles. */
  readonly createdBy: string;
  readonly orgId: number | null;
  readonly permissionList: readonly string[];
  /** Only from getAllRole: whether the caller may give this role to an account. */
  readonly grantable?: boolean;
}

export interface RoleInput {
  readonly name: string;
  readonly summary: string;
  readonly permissionList: readonly string[];
}

/** An admin account of the caller's organisation; never its password. */
export interface AdminAccount {
  readonly id: number;
  readonly account: string;
  readonly nickname: string;
  readonly email: string;
  readonly phone: string;
  readonly roleId: number;
  readonly role: string;
  readonly orgId: number;
  readonly createdAt: number;
}

export interface NewAdminAccount {
  readonly account: string;
  /** SHA-256 hex of the typed password. */
  readonly password: string;
  readonly roleId: number;
  readonly nickname?: string;
  readonly email?: string;
  readonly phone?: string;
}

export interface AdminAccountChanges {
  readonly id: number;
  readonly password?: string;
  readonly roleId?: number;
  readonly nickname?: string;
  readonly email?: string;
  readonly phone?: string;
}

/** The /permit/* calls of platform-core section 7 (roles and admin accounts). */
export const permitApi = {
  allPermits: () => request<PermitEntry[]>({ method: 'GET', url: '/permit/getAllPermits' }),
  roleList: (pageNum: number, pageSize: number, name?: string) =>
    request<Page<Role>>({ method: 'POST', url: '/permit/getRoleList', data: { pageNum, pageSize, ...(name ? { name } : {}) } }),
  allRoles: () => request<Role[]>({ method: 'GET', url: '/permit/getAllRole' }),
  // The role form shows its own failures (the taken name under the field), so these two do not toast.
  addRole: (role: RoleInput) => request<{ id: number }>({ method: 'POST', url: '/permit/addRole', data: role, silent: true }),
  updateRole: (id: number, role: RoleInput) => request<null>({ method: 'POST', url: '/permit/updateRole', data: { id, ...role }, silent: true }),
  deleteRole: (id: number) => request<null>({ method: 'DELETE', url: `/permit/delRole/${id}` }),
  permitsByRole: (id: number) => request<string[]>({ method: 'GET', url: `/permit/getPermitsByRole/${id}` }),
  adminList: (pageNum: number, pageSize: number, account?: string) =>
    request<Page<AdminAccount>>({ method: 'POST', url: '/permit/getAdminList', data: { pageNum, pageSize, ...(account ? { account } : {}) } }),
  addAccount: (account: NewAdminAccount) => request<{ id: number }>({ method: 'POST', url: '/permit/addAccount', data: account, silent: true }),
  updateAccount: (changes: AdminAccountChanges) => request<null>({ method: 'POST', url: '/permit/updateAccount', data: changes, silent: true }),
  deleteAccount: (id: number) => request<null>({ method: 'DELETE', url: `/permit/delAccount/${id}` }),
};
