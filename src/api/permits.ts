import type { Page } from '../../protocol/api/devices.ts';
import type { AccountView, AddAccountBody, AddRoleBody, AdminListBody, PermitEntry, RoleListBody, RoleView, UpdateAccountBody, UpdateRoleBody } from '../../protocol/api/permits.ts';
import { request } from './request.ts';

/** The answers and bodies of /permit/* (protocol/api/permits.ts). */
export type { PermitEntry };
export type Role = RoleView;
export type AdminAccount = AccountView;
/** A role's fields as the role form sends them (the id goes beside them for an update). */
export type RoleInput = AddRoleBody;
export type NewAdminAccount = AddAccountBody;
export type AdminAccountChanges = UpdateAccountBody;

/** The /permit/* calls of platform-core section 7 (roles and admin accounts). */
export const permitApi = {
  allPermits: () => request<PermitEntry[]>({ method: 'GET', url: '/permit/getAllPermits' }),
  roleList: (pageNum: number, pageSize: number, name?: string) =>
    request<Page<Role>>({ method: 'POST', url: '/permit/getRoleList', data: { pageNum, pageSize, ...(name ? { name } : {}) } satisfies RoleListBody }),
  allRoles: () => request<Role[]>({ method: 'GET', url: '/permit/getAllRole' }),
  // The role form shows its own failures (the taken name under the field), so these two do not toast.
  addRole: (role: RoleInput) => request<{ id: number }>({ method: 'POST', url: '/permit/addRole', data: role, silent: true }),
  updateRole: (id: number, role: RoleInput) => request<null>({ method: 'POST', url: '/permit/updateRole', data: { id, ...role } satisfies UpdateRoleBody, silent: true }),
  deleteRole: (id: number) => request<null>({ method: 'DELETE', url: `/permit/delRole/${id}` }),
  permitsByRole: (id: number) => request<string[]>({ method: 'GET', url: `/permit/getPermitsByRole/${id}` }),
  adminList: (pageNum: number, pageSize: number, account?: string) =>
    request<Page<AdminAccount>>({ method: 'POST', url: '/permit/getAdminList', data: { pageNum, pageSize, ...(account ? { account } : {}) } satisfies AdminListBody }),
  addAccount: (account: NewAdminAccount) => request<{ id: number }>({ method: 'POST', url: '/permit/addAccount', data: account, silent: true }),
  updateAccount: (changes: AdminAccountChanges) => request<null>({ method: 'POST', url: '/permit/updateAccount', data: changes, silent: true }),
  deleteAccount: (id: number) => request<null>({ method: 'DELETE', url: `/permit/delAccount/${id}` }),
};
