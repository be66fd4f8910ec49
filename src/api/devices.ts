import type { DeviceAllocateBody, DeviceCountryBody, DeviceListBody, DeviceListFilter, DeviceRemarkBody, DeviceSelection, DeviceSortField, DeviceView, Page, Updated } from '../../protocol/api/devices.ts';
import { request } from './request.ts';

/** A device row as the server lists it (protocol/api/devices.ts). */
export type Device = DeviceView;
export type { DeviceSortField, Page };

/** Filters of the list and of control by query: one shape with the server (protocol/api/devices.ts). */
export type DeviceFilter = DeviceListFilter;

/** The list call's body (protocol/api/devices.ts). */
export type DeviceQuery = DeviceListBody;

/** Drops empty filter values, so the server sees only what the user chose. */
export function cleanFilter<T extends object>(q: T): T {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== '' && v !== null)) as T;
}

export const deviceApi = {
  list: (q: DeviceQuery) => request<Page<Device>>({ method: 'POST', url: '/device/list', data: cleanFilter(q) }),
  /** Serials matching a query (control by query), at most 10,000. */
  select: (f: DeviceFilter) => request<DeviceSelection>({ method: 'POST', url: '/device/select', data: cleanFilter(f) }),
  remark: (sns: readonly string[], remark: string) => request<Updated>({ method: 'POST', url: '/device/remark', data: { sns: [...sns], remark } satisfies DeviceRemarkBody }),
  allocate: (sns: readonly string[], orgId: number) => request<Updated>({ method: 'POST', url: '/device/allocate', data: { sns: [...sns], orgId } satisfies DeviceAllocateBody }),
  setCountry: (sns: readonly string[], country: DeviceCountryBody['country']) =>
    request<Updated>({ method: 'POST', url: '/device/country', data: { sns: [...sns], country } satisfies DeviceCountryBody }),
};
