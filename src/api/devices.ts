import { request } from './request.ts';

/** A device row as the server lists it. */
export interface Device {
  readonly id: number;
  readonly sn: string;
  readonly orgId: number;
  readonly model: string;
  readonly systemType: 'android' | 'linux';
  readonly systemVersion: string;
  readonly imageVersion: string;
  readonly networkType: number;
  readonly onlineState: number;
  readonly deviceState: number;
  readonly latestOnlineTime: number | null;
  readonly offlineTime: number | null;
}

export interface Page<T> {
  readonly total: number;
  readonly list: readonly T[];
}

export interface DeviceQuery {
  readonly pageNum: number;
  readonly pageSize: number;
  readonly sn?: string;
  readonly onlineState?: number;
}

export const deviceApi = {
  list: (q: DeviceQuery) => request<Page<Device>>({ method: 'POST', url: '/device/list', data: q }),
};
