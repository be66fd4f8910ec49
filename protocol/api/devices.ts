// Shapes of the REST API that both the server and the console hold: one definition, so they cannot drift.
// (The console may not import server/ and the server may not import src/; both may import protocol/.)
// Request bodies are JSON Schema written with TypeBox, each with its type derived (protocol/api/common.ts).
import { type Static, Type } from 'typebox';
import { Country, NetworkType, SystemType } from '../catalogue/enums.ts';
import { Among, Id, LongText, OneOf, PagingProperties } from './common.ts';
import { DeviceFieldFilter } from './device-fields.ts';

/** One page of a list call: platform-core section 7's {total, list} (declared with its schema in common.ts). */
export type { Page } from './common.ts';

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
  /** The organisation's custom fields set on the device, by field id (issue 23); absent when none are. */
  readonly fields?: Readonly<Record<string, string>>;
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

/** Most serials one allocate, country or remark call takes, and most one "control by query" resolves. */
export const MAX_SNS = 10_000;

const Sn = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' });
const Sns = Type.Array(Sn, { minItems: 1, maxItems: MAX_SNS, uniqueItems: true });

/**
 * Filters of the device list and of control by query, as the console sends them. Text filters match a
 * substring ignoring case; the others match exactly, except `batteryMax` (at most that percentage, among
 * devices that reported a battery).
 */
const DeviceFilterProperties = {
  sn: Type.Optional(Type.String({ maxLength: 128 })),
  model: Type.Optional(Type.String({ maxLength: 128 })),
  orgId: Type.Optional(Id),
  onlineState: Type.Optional(Among<number>([1, 2])),
  deviceState: Type.Optional(Among<number>([0, 1, 2])),
  systemType: Type.Optional(Among<string>(Object.values(SystemType))),
  country: Type.Optional(Among<string>(Object.values(Country))),
  imageVersion: Type.Optional(Type.String({ maxLength: 128 })),
  remark: Type.Optional(LongText),
  imei: Type.Optional(Type.String({ maxLength: 64 })),
  networkType: Type.Optional(Among<number>(Object.values(NetworkType))),
  manufacturer: Type.Optional(Type.String({ maxLength: 128 })),
  location: Type.Optional(Type.String({ maxLength: 256 })),
  mcuVersion: Type.Optional(Type.String({ maxLength: 128 })),
  systemVersion: Type.Optional(Type.String({ maxLength: 128 })),
  batteryMax: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  /** Custom device fields (protocol/api/device-fields.ts): every condition must hold. */
  fields: Type.Optional(DeviceFieldFilter),
};

/** POST /device/select (control by query): the filters alone; answers {total, sns}. */
export const DeviceSelectBody = Type.Object(DeviceFilterProperties, { additionalProperties: false });
export type DeviceListFilter = Static<typeof DeviceSelectBody>;

/** POST /device/list: a page of devices, filtered and sorted on the server. */
export const DeviceListBody = Type.Object(
  {
    ...PagingProperties,
    sortField: Type.Optional(OneOf(DEVICE_SORT_FIELDS)),
    sortOrder: Type.Optional(OneOf(['asc', 'desc'])),
    ...DeviceFilterProperties,
  },
  { additionalProperties: false },
);
export type DeviceListBody = Static<typeof DeviceListBody>;

/** POST /device/remark: one remark for several devices. */
export const DeviceRemarkBody = Type.Object({ sns: Sns, remark: LongText }, { additionalProperties: false });
export type DeviceRemarkBody = Static<typeof DeviceRemarkBody>;

/** POST /device/allocate: move devices to an organisation. */
export const DeviceAllocateBody = Type.Object({ sns: Sns, orgId: Id }, { additionalProperties: false });
export type DeviceAllocateBody = Static<typeof DeviceAllocateBody>;

/** POST /device/country: set the devices' country. */
export const DeviceCountryBody = Type.Object({ sns: Sns, country: Among<string>(Object.values(Country)) }, { additionalProperties: false });
export type DeviceCountryBody = Static<typeof DeviceCountryBody>;

/** Answer of /device/select. */
export interface DeviceSelection {
  readonly total: number;
  readonly sns: readonly string[];
}

/** Answer of the device edits: how many rows changed. */
export interface Updated {
  readonly updated: number;
}
