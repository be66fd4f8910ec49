import { isRecord, SUPPORT_FLAGS } from '../../protocol/index.ts';

/** The device entity's optional fields as a device reports them at login, already validated (column names). */
export interface DeviceDetails {
  readonly mcu_version?: string;
  readonly install_date?: number;
  readonly uptime?: number;
  readonly location?: string;
  readonly imei?: string;
  readonly baseband_version?: string;
  readonly bluetooth_mac?: string;
  readonly wlan_mac?: string;
  readonly battery?: number;
  readonly manufacturer?: string;
  readonly gnss_model?: string;
  readonly lte_model?: string;
  readonly hardware_id?: string;
  readonly terminal_version?: string;
  readonly storage_total?: number;
  readonly storage_free?: number;
  readonly support_flags?: string;
}

// Login data field -> column. Unknown or malformed fields are ignored rather than refusing the login: an
// older agent that reports less (or a newer one that reports more) must still be able to log in.
const TEXTS = {
  mcuVersion: 'mcu_version',
  location: 'location',
  imei: 'imei',
  basebandVersion: 'baseband_version',
  bluetoothMac: 'bluetooth_mac',
  wlanMac: 'wlan_mac',
  manufacturer: 'manufacturer',
  gnssModel: 'gnss_model',
  lteModel: 'lte_model',
  hardwareId: 'hardware_id',
  terminalVersion: 'terminal_version',
} as const;
const NUMBERS = { installDate: 'install_date', uptime: 'uptime', battery: 'battery', storageTotal: 'storage_total', storageFree: 'storage_free' } as const;
const MAX_TEXT = 128;

/** Reads the optional entity fields from a device's login data; absent when it reports none. */
export function parseDeviceDetails(data: unknown): DeviceDetails | undefined {
  if (!isRecord(data)) return undefined;
  const d = data;
  const out: Record<string, string | number> = {};
  for (const [field, column] of Object.entries(TEXTS)) {
    const v = d[field];
    if (typeof v === 'string' && v.length <= MAX_TEXT) out[column] = v;
  }
  for (const [field, column] of Object.entries(NUMBERS)) {
    const v = d[field];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER) out[column] = Math.floor(v);
  }
  if (typeof out.battery === 'number' && out.battery > 100) delete out.battery;
  const flags = d.supportFlags;
  if (Array.isArray(flags)) out.support_flags = SUPPORT_FLAGS.filter((f) => flags.includes(f)).join(',');
  return Object.keys(out).length > 0 ? (out as DeviceDetails) : undefined;
}
