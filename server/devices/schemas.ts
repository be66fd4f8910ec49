import { Country, type DeviceListFilter, NetworkType, SystemType } from '../../protocol/index.ts';
import { SORTABLE, type SortField } from './repository.ts';
import { MAX_PAGE_NUM } from '../http/paging.ts';

/** Most serials one allocate, country or remark call takes, and most one "control by query" resolves. */
export const MAX_SNS = 10_000;

const id = { type: 'integer', minimum: 1 } as const;
const longText = { type: 'string', maxLength: 512 } as const;
const sn = { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' } as const;
const sns = { type: 'array', items: sn, minItems: 1, maxItems: MAX_SNS, uniqueItems: true } as const;

/** Filter fields shared by the list and by control-by-query. */
const filterProperties = {
  sn: { type: 'string', maxLength: 128 },
  model: { type: 'string', maxLength: 128 },
  orgId: id,
  onlineState: { type: 'integer', enum: [1, 2] },
  deviceState: { type: 'integer', enum: [0, 1, 2] },
  systemType: { type: 'string', enum: Object.values(SystemType) },
  country: { type: 'string', enum: Object.values(Country) },
  imageVersion: { type: 'string', maxLength: 128 },
  remark: { type: 'string', maxLength: 512 },
  imei: { type: 'string', maxLength: 64 },
  networkType: { type: 'integer', enum: Object.values(NetworkType) },
  manufacturer: { type: 'string', maxLength: 128 },
  location: { type: 'string', maxLength: 256 },
  mcuVersion: { type: 'string', maxLength: 128 },
  systemVersion: { type: 'string', maxLength: 128 },
  batteryMax: { type: 'integer', minimum: 0, maximum: 100 },
} as const satisfies Record<keyof DeviceListFilter, unknown>;

export type FilterBody = DeviceListFilter;

export const listBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pageNum: { type: 'integer', minimum: 1, maximum: MAX_PAGE_NUM, default: 1 },
    pageSize: { type: 'integer', enum: [10, 20, 30, 40, 50, 100], default: 10 },
    sortField: { type: 'string', enum: Object.keys(SORTABLE) },
    sortOrder: { type: 'string', enum: ['asc', 'desc'] },
    ...filterProperties,
  },
} as const;

export interface ListBody extends FilterBody {
  pageNum?: number;
  pageSize?: number;
  sortField?: SortField;
  sortOrder?: 'asc' | 'desc';
}

export const selectBody = { type: 'object', additionalProperties: false, properties: filterProperties } as const;

export const remarkBody = {
  type: 'object',
  additionalProperties: false,
  required: ['sns', 'remark'],
  properties: { sns, remark: longText },
} as const;
export interface RemarkBody {
  sns: string[];
  remark: string;
}

export const allocateBody = {
  type: 'object',
  additionalProperties: false,
  required: ['sns', 'orgId'],
  properties: { sns, orgId: id },
} as const;
export interface AllocateBody {
  sns: string[];
  orgId: number;
}

export const countryBody = {
  type: 'object',
  additionalProperties: false,
  required: ['sns', 'country'],
  properties: { sns, country: { type: 'string', enum: Object.values(Country) } },
} as const;
export interface CountryBody {
  sns: string[];
  country: string;
}
