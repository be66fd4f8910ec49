import {
  AddressType,
  CardStatus,
  Carrier,
  ComboType,
  ImportType,
  JuxinCardStatus,
  RealStatus,
  SpringCardAction,
  SpringCardStatus,
} from '../../protocol/index.ts';
import { field } from '../http/validation.ts';
import { queryPaging } from '../http/paging.ts';

/** Request schemas of the card and directional-group calls: typed, bounded, no unknown fields. */

const ICCID = { type: 'string', pattern: '^[0-9A-Fa-f]{19,20}$' } as const;
const values = (o: Record<string, string | number>) => Object.values(o).map(String);

// Query values arrive as strings (types are not coerced), so numbers are checked by pattern or enum.
const paging = queryPaging;

const cardFilters = {
  ...paging,
  iccid: { type: 'string', maxLength: 20 },
  msisdn: { type: 'string', maxLength: 20 },
  carrier: { type: 'string', enum: values(Carrier) },
} as const;

export const springListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...cardFilters, status: { type: 'string', enum: values(SpringCardStatus) } },
} as const;

export const linkListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...cardFilters,
    status: { type: 'string', enum: values(CardStatus) },
    realStatus: { type: 'string', enum: values(RealStatus) },
    comboType: { type: 'string', enum: values(ComboType) },
    groupId: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' },
  },
} as const;

export const juxinListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...cardFilters, status: { type: 'string', enum: values(JuxinCardStatus) } },
} as const;

export interface CardListQuery {
  pageNum?: string;
  pageSize?: string;
  iccid?: string;
  msisdn?: string;
  carrier?: string;
  status?: string;
  realStatus?: string;
  comboType?: string;
  groupId?: string;
}

export const iccidParams = { type: 'object', required: ['iccid'], properties: { iccid: ICCID } } as const;

/** Stop ('01') or restart ('00'), the spring card's action codes, taken by every family. */
export const changeStatusBody = {
  type: 'object',
  additionalProperties: false,
  required: ['iccid', 'action'],
  properties: { iccid: ICCID, action: { type: 'string', enum: values(SpringCardAction) } },
} as const;

export interface ChangeStatusBody {
  iccid: string;
  action: '00' | '01';
}

export const iccidBody = { type: 'object', additionalProperties: false, required: ['iccid'], properties: { iccid: ICCID } } as const;

export const bindGroupBody = {
  type: 'object',
  additionalProperties: false,
  required: ['iccid', 'groupId'],
  properties: { iccid: ICCID, groupId: { type: ['integer', 'null'], minimum: 1 } },
} as const;

export interface BindGroupBody {
  iccid: string;
  groupId: number | null;
}

export const groupListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...paging, name: { type: 'string', maxLength: field.text.maxLength } },
} as const;

export const groupBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { id: field.id, name: field.text, remark: field.longText },
} as const;

export interface GroupBody {
  id?: number;
  name: string;
  remark?: string;
}

export const idBody = { type: 'object', additionalProperties: false, required: ['id'], properties: { id: field.id } } as const;

export const addressListQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['groupId'],
  properties: { groupId: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' } },
} as const;

export const addressBody = {
  type: 'object',
  additionalProperties: false,
  required: ['groupId', 'addressType', 'address'],
  properties: {
    groupId: field.id,
    addressType: { type: 'string', enum: values(AddressType) },
    address: { type: 'string', maxLength: 253 },
    description: field.text,
    importType: { type: 'string', enum: values(ImportType) },
  },
} as const;

export interface AddressBody {
  groupId: number;
  addressType: 'ip' | 'domain';
  address: string;
  description?: string;
  importType?: 'NEW' | 'TRANSFER';
}
