import { field, pagingProperties } from '../http/validation.ts';
import { FreezeState, ORG_SORT_KEYS, type OrgSortKey } from './repository.ts';

/** Body schemas of the /org/* calls: typed, bounded, and no unknown fields. */

const descriptive = {
  alias: field.text,
  email: field.email,
  phone: field.phone,
  remark: field.longText,
  contactPerson: field.text,
  expireTime: field.epochMs,
  // PEM or OpenSSH text, ASCII only.
  publicKey: { type: 'string', maxLength: 4096, pattern: '^[\\x20-\\x7E\\r\\n]*$' },
  customerType: { type: 'integer', enum: [1, 2] },
} as const;

export const listBody = {
  type: 'object',
  additionalProperties: false,
  properties: { ...pagingProperties, name: field.text, orderBy: { type: 'string', enum: [...ORG_SORT_KEYS] }, order: { type: 'string', enum: ['asc', 'desc'] } },
} as const;

export const addBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'account', 'password', 'roleId'],
  properties: {
    parentId: field.id,
    name: field.text,
    ...descriptive,
    account: { type: 'string', maxLength: 64 },
    password: field.hashedPassword,
    roleId: field.id,
  },
} as const;

export const updateBody = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: field.id, name: field.text, ...descriptive, roleId: field.id },
} as const;

export const idBody = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: field.id },
} as const;

export const freezeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'freezeState'],
  properties: { id: field.id, freezeState: { type: 'integer', enum: [FreezeState.Unfrozen, FreezeState.Frozen] } },
} as const;

export const passwordBody = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'password'],
  properties: { id: field.id, password: field.hashedPassword },
} as const;

export interface ListBody {
  pageNum?: number;
  pageSize?: number;
  name?: string;
  orderBy?: OrgSortKey;
  order?: 'asc' | 'desc';
}

interface Descriptive {
  alias?: string;
  email?: string;
  phone?: string;
  remark?: string;
  contactPerson?: string;
  expireTime?: number | null;
  publicKey?: string;
  customerType?: number;
}

export interface AddBody extends Descriptive {
  parentId?: number;
  name: string;
  account: string;
  password: string;
  /** The login account's role, chosen explicitly (docs/DECISIONS.md, grant rules). */
  roleId: number;
}

export interface UpdateBody extends Descriptive {
  id: number;
  name?: string;
  roleId?: number;
}

export interface IdBody {
  id: number;
}

export interface FreezeBody extends IdBody {
  freezeState: number;
}

export interface PasswordBody extends IdBody {
  password: string;
}
