// Shapes of the REST API that both the server and the console hold: one definition, so they cannot drift.
// (The console may not import server/ and the server may not import src/; both may import protocol/.)

/** One page of a list call: platform-core section 7's {total, list}. */
export interface Page<T> {
  readonly total: number;
  readonly list: readonly T[];
}

/** A device row as the server lists it: every field of the device entity (devices-and-commerce section 3). */
export interface DeviceView {
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

/**
 * Filters of the device list and of control by query, as the console sends them. Text filters match a
 * substring ignoring case; the others match exactly, except `batteryMax` (at most that percentage, among
 * devices that reported a battery).
 */
export interface DeviceListFilter {
  readonly sn?: string | undefined;
  readonly model?: string | undefined;
  readonly orgId?: number | undefined;
  readonly onlineState?: number | undefined;
  readonly deviceState?: number | undefined;
  readonly systemType?: string | undefined;
  readonly country?: string | undefined;
  readonly imageVersion?: string | undefined;
  readonly remark?: string | undefined;
  readonly imei?: string | undefined;
  readonly networkType?: number | undefined;
  readonly manufacturer?: string | undefined;
  readonly location?: string | undefined;
  readonly mcuVersion?: string | undefined;
  readonly systemVersion?: string | undefined;
  readonly batteryMax?: number | undefined;
}

/** The filter fields that take free text (a substring), in the order the console offers them. */
export const DEVICE_TEXT_FILTERS = ['sn', 'model', 'imageVersion', 'remark', 'imei', 'manufacturer', 'location', 'mcuVersion', 'systemVersion'] as const;
export type DeviceTextFilter = (typeof DEVICE_TEXT_FILTERS)[number];

/**
 * Fields the list sorts by (server-side): the indexed columns and the device entity's plain columns.
 * Storage (two columns) and support flags (a comma list) are not sortable.
 */
export const DEVICE_SORT_FIELDS = [
  'id',
  'sn',
  'model',
  'orgName',
  'onlineState',
  'deviceState',
  'country',
  'imageVersion',
  'mcuVersion',
  'systemType',
  'systemVersion',
  'installDate',
  'uptime',
  'latestOnlineTime',
  'offlineTime',
  'location',
  'networkType',
  'imei',
  'basebandVersion',
  'bluetoothMac',
  'wlanMac',
  'battery',
  'manufacturer',
  'gnssModel',
  'lteModel',
  'hardwareId',
  'terminalVersion',
  'remark',
] as const;
export type DeviceSortField = (typeof DEVICE_SORT_FIELDS)[number];
