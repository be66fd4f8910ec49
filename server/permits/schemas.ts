import { permissionCatalogue } from '../../protocol/index.ts';
import { field, pagingProperties } from '../http/validation.ts';

/** Body schemas of the /permit/* calls: typed, bounded, and no unknown fields. */

const permissionList = {
  type: 'array',
  maxItems: permissionCatalogue.length,
  items: { type: 'string', maxLength: 64 },
} as const;

export const roleListBody = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pagingProperties, name: field.text },
} as const;

const roleFields = { name: field.text, summary: field.longText, permissionList } as const;

export const addRoleBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'permissionList'],
  properties: roleFields,
} as const;

export const updateRoleBody = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'permissionList'],
  properties: { id: field.id, ...roleFields },
} as const;

export const adminListBody = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pagingProperties, account: { type: 'string', maxLength: 64 } },
} as const;

const contact = { nickname: field.text, email: field.email, phone: field.phone } as const;

export const addAccountBody = {
  type: 'object',
  additionalProperties: false,
  required: ['account', 'password', 'roleId'],
  properties: { account: { type: 'string', maxLength: 64 }, password: field.hashedPassword, roleId: field.id, ...contact },
} as const;

export const updateAccountBody = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: field.id, password: field.hashedPassword, roleId: field.id, ...contact },
} as const;

export const selfPasswordBody = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'password'],
  // oldPassword is ours (the spec's call takes id and the new password): the console sends it so that the
  // old password is checked here, for every account, not through an org_list-gated call.
  properties: { id: field.id, password: field.hashedPassword, oldPassword: field.hashedPassword },
} as const;

export interface RoleListBody {
  pageNum?: number;
  pageSize?: number;
  name?: string;
}

export interface RoleBody {
  name: string;
  summary?: string;
  permissionList: string[];
}

export interface UpdateRoleBody extends RoleBody {
  id: number;
}

export interface AdminListBody {
  pageNum?: number;
  pageSize?: number;
  account?: string;
}

interface Contact {
  nickname?: string;
  email?: string;
  phone?: string;
}

export interface AddAccountBody extends Contact {
  account: string;
  password: string;
  roleId: number;
}

export interface UpdateAccountBody extends Contact {
  id: number;
  password?: string;
  roleId?: number;
}

export interface SelfPasswordBody {
  id: number;
  password: string;
  /** SHA-256 hex of the current password; when given, a wrong one refuses the change. */
  oldPassword?: string;
}
