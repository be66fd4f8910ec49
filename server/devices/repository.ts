import { DEVICE_TEXT_FILTERS, type DeviceListFilter, type DeviceSortField, type DeviceTextFilter, type DeviceView, OnlineState, SUPPORT_FLAGS } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import type { DeviceRow } from '../db/schema.ts';
import { containsIgnoringCase } from '../db/text-search.ts';
import type { DeviceDetails } from './details.ts';

/** What a device says about itself when it logs in. */
export interface DeviceInfo {
  readonly model: string;
  readonly systemType: string;
  readonly systemVersion: string;
  readonly imageVersion: string;
  readonly networkType: number;
  /** The entity's optional fields, when the device reports them. */
  readonly details?: DeviceDetails | undefined;
}

/** Columns the list sorts by, by the console's field name. */
export const SORTABLE = {
  id: 'devices.id',
  sn: 'devices.sn',
  model: 'devices.model',
  orgName: 'organisations.name',
  onlineState: 'devices.online_state',
  deviceState: 'devices.device_state',
  country: 'devices.country',
  imageVersion: 'devices.image_version',
  mcuVersion: 'devices.mcu_version',
  systemType: 'devices.system_type',
  systemVersion: 'devices.system_version',
  installDate: 'devices.install_date',
  uptime: 'devices.uptime',
  latestOnlineTime: 'devices.latest_online_time',
  offlineTime: 'devices.offline_time',
  location: 'devices.location',
  networkType: 'devices.network_type',
  imei: 'devices.imei',
  basebandVersion: 'devices.baseband_version',
  bluetoothMac: 'devices.bluetooth_mac',
  wlanMac: 'devices.wlan_mac',
  battery: 'devices.battery',
  manufacturer: 'devices.manufacturer',
  gnssModel: 'devices.gnss_model',
  lteModel: 'devices.lte_model',
  hardwareId: 'devices.hardware_id',
  terminalVersion: 'devices.terminal_version',
  remark: 'devices.remark',
} as const satisfies Record<DeviceSortField, string>;
export type SortField = DeviceSortField;
export type { DeviceView };

/**
 * Filters of the list and of "control by query" (devices-and-commerce section 4, control type true),
 * always within the caller's organisation scope. `orgId` must be in scope to match anything.
 */
export interface DeviceFilter extends DeviceListFilter {
  readonly scope: ReadonlySet<number>;
}

/** Text filters and their columns: each matches a substring, ignoring case. */
const TEXT_FILTER_COLUMNS = {
  sn: 'devices.sn',
  model: 'devices.model',
  imageVersion: 'devices.image_version',
  remark: 'devices.remark',
  imei: 'devices.imei',
  manufacturer: 'devices.manufacturer',
  location: 'devices.location',
  mcuVersion: 'devices.mcu_version',
  systemVersion: 'devices.system_version',
} as const satisfies Record<DeviceTextFilter, string>;

export interface DeviceQuery extends DeviceFilter {
  readonly pageNum: number;
  readonly pageSize: number;
  readonly sortField?: SortField | undefined;
  readonly sortOrder?: 'asc' | 'desc' | undefined;
}


export function toDeviceView(row: DeviceRow & { org_name?: string | null }): DeviceView {
  const flags = row.support_flags ? row.support_flags.split(',') : [];
  return {
    id: row.id,
    sn: row.sn,
    orgId: row.org_id,
    model: row.model,
    systemType: row.system_type === 'linux' ? 'linux' : 'android',
    systemVersion: row.system_version,
    imageVersion: row.image_version,
    networkType: row.network_type,
    onlineState: row.online_state,
    deviceState: row.device_state,
    latestOnlineTime: row.latest_online_time,
    offlineTime: row.offline_time,
    orgName: row.org_name ?? '',
    remark: row.remark,
    country: row.country,
    mcuVersion: row.mcu_version,
    installDate: row.install_date,
    uptime: row.uptime,
    location: row.location,
    imei: row.imei,
    basebandVersion: row.baseband_version,
    bluetoothMac: row.bluetooth_mac,
    wlanMac: row.wlan_mac,
    battery: row.battery,
    manufacturer: row.manufacturer,
    gnssModel: row.gnss_model,
    lteModel: row.lte_model,
    hardwareId: row.hardware_id,
    terminalVersion: row.terminal_version,
    storageTotal: row.storage_total,
    storageFree: row.storage_free,
    supportFlags: SUPPORT_FLAGS.filter((f) => flags.includes(f)),
  };
}


/** A device's row by serial: read at every device login. */
const deviceBySn = prepared((db, sn: string) => db.selectFrom('devices').selectAll().where('sn', '=', sn));
/**
 * What routing a command needs of a device held by another process: read for every such command (half of
 * a two-worker node's commands), so two columns, not the entity's thirty-six.
 */
const routeBySn = prepared((db, sn: string) => db.selectFrom('devices').select(['org_id', 'online_state']).where('sn', '=', sn));

/** Where a device belongs and whether it is online, as the database says: what routing a command to it needs. */
export interface DeviceRoute {
  readonly orgId: number;
  readonly online: boolean;
}

/** Devices in the database. */
export class DeviceRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  findBySn(sn: string): Promise<DeviceRow | undefined> {
    return deviceBySn(this.#db, sn).then((r) => r.rows[0]);
  }

  /** A device's organisation and online state; undefined when there is no such device. */
  routeOf(sn: string): Promise<DeviceRoute | undefined> {
    return routeBySn(this.#db, sn).then((r) => {
      const row = r.rows[0];
      return row && { orgId: row.org_id, online: row.online_state === OnlineState.Online };
    });
  }

  /**
   * Registers a device that enrolled into `orgId` by logging in: the row is written online, held by
   * `nodeId`, as markOnline would leave it, so a first login costs one write, not two. Its secret is
   * pending until the device logs in with it (see admitDevice).
   */
  async register(sn: string, orgId: number, secretHash: string, info: DeviceInfo, now: number, nodeId: string | null = null): Promise<void> {
    await this.#db
      .insertInto('devices')
      .values({
        sn,
        org_id: orgId,
        secret_hash: secretHash,
        secret_pending: 1,
        model: info.model,
        system_type: info.systemType,
        system_version: info.systemVersion,
        image_version: info.imageVersion,
        network_type: info.networkType,
        ...info.details,
        created_at: now,
        online_state: OnlineState.Online,
        latest_online_time: now,
        node_id: nodeId,
      })
      .execute();
  }

  /**
   * Sets a device's secret digest: '' revokes it (no secret matches; the device may come back only by
   * enrolling again with its organisation's key), a digest re-issues it, pending until used. False when
   * no such device.
   */
  async setSecret(sn: string, secretHash: string): Promise<boolean> {
    const [result] = await this.#db.updateTable('devices').set({ secret_hash: secretHash, secret_pending: secretHash === '' ? 0 : 1 }).where('sn', '=', sn).execute();
    return Number(result?.numUpdatedRows ?? 0) > 0;
  }

  /**
   * Records a login on gateway node `nodeId`: the device is online there and its reported info is current.
   * `bySecret`: it logged in with its secret, which is no longer pending (in the same statement, so the
   * first login with a secret costs nothing more).
   */
  async markOnline(sn: string, info: DeviceInfo, now: number, nodeId: string | null = null, bySecret = false): Promise<void> {
    await this.#db
      .updateTable('devices')
      .set({
        ...(bySecret ? { secret_pending: 0 } : {}),
        online_state: OnlineState.Online,
        latest_online_time: now,
        node_id: nodeId,
        model: info.model,
        system_type: info.systemType,
        system_version: info.systemVersion,
        image_version: info.imageVersion,
        network_type: info.networkType,
        ...info.details,
      })
      .where('sn', '=', sn)
      .execute();
  }

  /**
   * Records a disconnect of the login made at `onlineSince`; a newer login (a quick reconnect, perhaps
   * through another node) has a later latest_online_time and is left online. True when the row changed.
   */
  async markOffline(sn: string, now: number, onlineSince: number): Promise<boolean> {
    const [result] = await this.#db
      .updateTable('devices')
      .set({ online_state: OnlineState.Offline, offline_time: now, node_id: null })
      .where('sn', '=', sn)
      .where('latest_online_time', '<=', onlineSince)
      .execute();
    return Number(result?.numUpdatedRows ?? 0) > 0;
  }

  /** At start-up no device is connected to this node yet. */
  async markAllOffline(now: number): Promise<void> {
    await this.#db
      .updateTable('devices')
      .set({ online_state: OnlineState.Offline, offline_time: now, node_id: null })
      .where('online_state', '=', OnlineState.Online)
      .execute();
  }

  /** The devices matching `f` as a query to build on (dynamic groups add their own conditions). */
  matching(f: DeviceFilter) {
    return this.#filtered(f);
  }

  #filtered(f: DeviceFilter) {
    const scope = f.scope;
    let q = this.#db.selectFrom('devices').where('devices.org_id', 'in', [...scope]);
    for (const field of DEVICE_TEXT_FILTERS) {
      const needle = f[field];
      if (needle) q = q.where(containsIgnoringCase(TEXT_FILTER_COLUMNS[field], needle));
    }
    if (f.networkType !== undefined) q = q.where('devices.network_type', '=', f.networkType);
    // Devices that never reported a battery (null) do not match a battery bound.
    if (f.batteryMax !== undefined) q = q.where('devices.battery', '<=', f.batteryMax);
    if (f.orgId !== undefined) q = q.where('devices.org_id', '=', f.orgId);
    if (f.onlineState !== undefined) q = q.where('devices.online_state', '=', f.onlineState);
    if (f.deviceState !== undefined) q = q.where('devices.device_state', '=', f.deviceState);
    if (f.systemType) q = q.where('devices.system_type', '=', f.systemType);
    if (f.country) q = q.where('devices.country', '=', f.country);
    // Custom fields of the caller's organisations: a text field holds the value as a substring (ignoring
    // case), a number or select field holds exactly the value.
    for (const cond of f.fields ?? []) {
      const value = cond.value.trim();
      if (!value) continue;
      q = q.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('device_field_values as v')
            .innerJoin('device_fields as f', 'f.id', 'v.field_id')
            .select('v.sn')
            .whereRef('v.sn', '=', 'devices.sn')
            .where('v.field_id', '=', cond.id)
            .where('f.org_id', 'in', [...scope])
            .where((eb) => eb.or([eb.and([eb('f.type', '=', 'text'), containsIgnoringCase('v.value', value)]), eb.and([eb('f.type', '<>', 'text'), eb('v.value', '=', value)])])),
        ),
      );
    }
    return q;
  }

  /** Custom field values of the devices `sns`, of fields of the organisations `scope`: by serial, by field id. */
  async fieldValues(sns: readonly string[], scope: ReadonlySet<number>): Promise<Map<string, Record<string, string>>> {
    const bySn = new Map<string, Record<string, string>>();
    if (sns.length === 0 || scope.size === 0) return bySn;
    const rows = await this.#db
      .selectFrom('device_field_values as v')
      .innerJoin('device_fields as f', 'f.id', 'v.field_id')
      .select(['v.sn', 'v.field_id', 'v.value'])
      .where('v.sn', 'in', [...sns])
      .where('f.org_id', 'in', [...scope])
      .execute();
    for (const r of rows) {
      const values = bySn.get(r.sn) ?? {};
      values[String(r.field_id)] = r.value;
      bySn.set(r.sn, values);
    }
    return bySn;
  }

  /** One page of the devices in scope matching the filter, sorted (default newest first), and the total. */
  async list(q: DeviceQuery): Promise<{ total: number; list: DeviceView[] }> {
    if (q.scope.size === 0) return { total: 0, list: [] };
    const base = this.#filtered(q);
    const order = q.sortOrder ?? 'desc';
    const [{ total }, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      base
        .leftJoin('organisations', 'organisations.id', 'devices.org_id')
        .selectAll('devices')
        .select('organisations.name as org_name')
        // Unknown values (a battery never reported, say) last whichever the direction, on both databases
        // (PostgreSQL and SQLite disagree on where nulls go by default).
        .orderBy(SORTABLE[q.sortField ?? 'id'], (ob) => (order === 'asc' ? ob.asc() : ob.desc()).nullsLast())
        // A stable tie-break, so pages never repeat or skip rows that share a sort value.
        .orderBy('devices.id', order)
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute(),
    ]);
    const fields = await this.fieldValues(rows.map((r) => r.sn), q.scope);
    return {
      total: Number(total),
      list: rows.map((r) => {
        const view = toDeviceView(r);
        const values = fields.get(r.sn);
        return values ? { ...view, fields: values } : view;
      }),
    };
  }

  /** Serials and organisations of the devices in scope matching the filter (control by query), at most `limit`. */
  async select(f: DeviceFilter, limit: number): Promise<{ total: number; sns: string[] }> {
    if (f.scope.size === 0) return { total: 0, sns: [] };
    const base = this.#filtered(f);
    const [{ total }, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      base.select('devices.sn').orderBy('devices.id', 'desc').limit(limit).execute(),
    ]);
    return { total: Number(total), sns: rows.map((r) => r.sn) };
  }

  /** Devices among `sns` that are in scope, with their organisation. */
  async inScope(sns: readonly string[], scope: ReadonlySet<number>): Promise<{ sn: string; orgId: number }[]> {
    if (sns.length === 0 || scope.size === 0) return [];
    const rows = await this.#db.selectFrom('devices').select(['sn', 'org_id']).where('sn', 'in', [...sns]).where('org_id', 'in', [...scope]).execute();
    return rows.map((r) => ({ sn: r.sn, orgId: r.org_id }));
  }

  /** The organisation of a device; undefined for an unknown serial. */
  async orgOf(sn: string): Promise<number | undefined> {
    return (await this.#db.selectFrom('devices').select('org_id').where('sn', '=', sn).executeTakeFirst())?.org_id;
  }

  /** Where a device is: its organisation and system type; undefined for an unknown serial. */
  placeOf(sn: string): Promise<{ sn: string; org_id: number; system_type: DeviceRow['system_type'] } | undefined> {
    return this.#db.selectFrom('devices').select(['sn', 'org_id', 'system_type']).where('sn', '=', sn).executeTakeFirst();
  }

  /** The organisations of the known devices among `sns` (in no order). */
  orgsOf(sns: readonly string[]): Promise<{ sn: string; org_id: number }[]> {
    return this.#db.selectFrom('devices').select(['sn', 'org_id']).where('sn', 'in', [...sns]).execute();
  }

  /** Android devices with their organisation: of `scope`, or of every organisation when undefined. */
  android(scope: ReadonlySet<number> | undefined): Promise<{ sn: string; org_id: number }[]> {
    let query = this.#db.selectFrom('devices').select(['sn', 'org_id']).where('system_type', '=', 'android');
    if (scope) query = query.where('org_id', 'in', [...scope]);
    return query.execute();
  }

  /** Sets fields of the named devices; returns how many rows changed. */
  async update(sns: readonly string[], set: { remark?: string; org_id?: number; country?: string }): Promise<number> {
    if (sns.length === 0) return 0;
    const res = await this.#db.updateTable('devices').set(set).where('sn', 'in', [...sns]).executeTakeFirst();
    return Number(res.numUpdatedRows);
  }
}
