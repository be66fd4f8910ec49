import type { DeviceListFilter, DeviceSortField, DeviceView, Page } from '../../protocol/index.ts';
import { request } from './request.ts';

/** A device row as the server lists it (protocol/api/devices.ts). */
export type Device = DeviceView;
export type { DeviceSortField, Page };

/** Filters of the list and of control by query: one shape with the server (protocol/api/devices.ts). */
export type DeviceFilter = DeviceListFilter;

export interface DeviceQuery extends DeviceFilter {
  readonly pageNum: number;
  readonly pageSize: number;
  readonly sortField?: DeviceSortField;
  readonly sortOrder?: 'asc' | 'desc';
}

/** Drops empty filter values, so the server sees only what the user chose. */
export function cleanFilter<T extends object>(q: T): T {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== '' && v !== null)) as T;
}

export const deviceApi = {
  list: (q: DeviceQuery) => request<Page<Device>>({ method: 'POST', url: '/device/list', data: cleanFilter(q) }),
  /** Serials matching a query (control by query), at most 10,000. */
  select: (f: DeviceFilter) => request<{ total: number; sns: string[] }>({ method: 'POST', url: '/device/select', data: cleanFilter(f) }),
  remark: (sns: readonly string[], remark: string) => request<{ updated: number }>({ method: 'POST', url: '/device/remark', data: { sns, remark } }),
  allocate: (sns: readonly string[], orgId: number) => request<{ updated: number }>({ method: 'POST', url: '/device/allocate', data: { sns, orgId } }),
  setCountry: (sns: readonly string[], country: string) => request<{ updated: number }>({ method: 'POST', url: '/device/country', data: { sns, country } }),
};
