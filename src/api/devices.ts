import { request } from './request.ts';

/** A device row as the server lists it: every field of the device entity (devices-and-commerce section 3). */
export interface Device {
  readonly id: number;
  readonly sn: string;
  readonly orgId: number;
  readonly orgName: string;
  readonly model: string;
  readonly systemType: 'android' | 'linux';
  readonly systemVersion: string;
  readonly imageVersion: string;
  readonly networkType: number;
  readonly onlineState: number;
  readonly deviceState: number;
  readonly latestOnlineTime: number | null;
  readonly offlineTime: number | null;
  readonly remark: string;
  readonly country: string;
  readonly mcuVersion: string;
  readonly installDate: number | null;
  /** Seconds since boot, as last reported. */
  readonly uptime: number | null;
  readonly location: string;
  readonly imei: string;
  readonly basebandVersion: string;
  readonly bluetoothMac: string;
  readonly wlanMac: string;
  readonly battery: number | null;
  readonly manufacturer: string;
  readonly gnssModel: string;
  readonly lteModel: string;
  readonly hardwareId: string;
  readonly terminalVersion: string;
  readonly storageTotal: number | null;
  readonly storageFree: number | null;
  readonly supportFlags: readonly string[];
}

export interface Page<T> {
  readonly total: number;
  readonly list: readonly T[];
}

/** Fields the list sorts by (server-side). */
export type DeviceSortField =
  | 'id'
  | 'sn'
  | 'model'
  | 'orgName'
  | 'onlineState'
  | 'deviceState'
  | 'country'
  | 'imageVersion'
  | 'systemVersion'
  | 'latestOnlineTime'
  | 'offlineTime'
  | 'battery'
  | 'installDate';

/** Filters of the list and of control by query. */
export interface DeviceFilter {
  readonly sn?: string;
  readonly model?: string;
  readonly orgId?: number;
  readonly onlineState?: number;
  readonly deviceState?: number;
  readonly systemType?: string;
  readonly country?: string;
  readonly imageVersion?: string;
  readonly remark?: string;
}

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
