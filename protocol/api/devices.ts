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
