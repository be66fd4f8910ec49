import { OnlineState } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import type { DeviceRow } from '../db/schema.ts';

/** What a device says about itself when it logs in. */
export interface DeviceInfo {
  readonly model: string;
  readonly systemType: string;
  readonly systemVersion: string;
  readonly imageVersion: string;
  readonly networkType: number;
}

export interface DeviceQuery {
  readonly scope: ReadonlySet<number>;
  readonly pageNum: number;
  readonly pageSize: number;
  readonly sn?: string | undefined;
  readonly onlineState?: number | undefined;
}

/** The device as the console sees it (field names as the console uses them). */
export interface DeviceView {
  readonly id: number;
  readonly sn: string;
  readonly orgId: number;
  readonly model: string;
  readonly systemType: string;
  readonly systemVersion: string;
  readonly imageVersion: string;
  readonly networkType: number;
  readonly onlineState: number;
  readonly deviceState: number;
  readonly latestOnlineTime: number | null;
  readonly offlineTime: number | null;
}

export function toDeviceView(row: DeviceRow): DeviceView {
  return {
    id: row.id,
    sn: row.sn,
    orgId: row.org_id,
    model: row.model,
    systemType: row.system_type,
    systemVersion: row.system_version,
    imageVersion: row.image_version,
    networkType: row.network_type,
    onlineState: row.online_state,
    deviceState: row.device_state,
    latestOnlineTime: row.latest_online_time,
    offlineTime: row.offline_time,
  };
}

/** Devices in the database. */
export class DeviceRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  findBySn(sn: string): Promise<DeviceRow | undefined> {
    return this.#db.selectFrom('devices').selectAll().where('sn', '=', sn).executeTakeFirst();
  }

  /** Registers a device that enrolled into `orgId`. */
  async register(sn: string, orgId: number, secretHash: string, info: DeviceInfo, now: number): Promise<DeviceRow> {
    return this.#db
      .insertInto('devices')
      .values({
        sn,
        org_id: orgId,
        secret_hash: secretHash,
        model: info.model,
        system_type: info.systemType,
        system_version: info.systemVersion,
        image_version: info.imageVersion,
        network_type: info.networkType,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Records a login: the device is online and its reported info is current. */
  async markOnline(sn: string, info: DeviceInfo, now: number): Promise<void> {
    await this.#db
      .updateTable('devices')
      .set({
        online_state: OnlineState.Online,
        latest_online_time: now,
        model: info.model,
        system_type: info.systemType,
        system_version: info.systemVersion,
        image_version: info.imageVersion,
        network_type: info.networkType,
      })
      .where('sn', '=', sn)
      .execute();
  }

  /**
   * Records a disconnect of the login made at `onlineSince`; a newer login (a quick reconnect, perhaps
   * through another node) has a later latest_online_time and is left online.
   */
  async markOffline(sn: string, now: number, onlineSince: number): Promise<void> {
    await this.#db
      .updateTable('devices')
      .set({ online_state: OnlineState.Offline, offline_time: now })
      .where('sn', '=', sn)
      .where('latest_online_time', '<=', onlineSince)
      .execute();
  }

  /** At start-up no device is connected to this node yet. */
  async markAllOffline(now: number): Promise<void> {
    await this.#db
      .updateTable('devices')
      .set({ online_state: OnlineState.Offline, offline_time: now })
      .where('online_state', '=', OnlineState.Online)
      .execute();
  }

  /** One page of the devices in scope, newest first, and the total. */
  async list(q: DeviceQuery): Promise<{ total: number; list: DeviceView[] }> {
    const scope = [...q.scope];
    if (scope.length === 0) return { total: 0, list: [] };
    let base = this.#db.selectFrom('devices').where('org_id', 'in', scope);
    if (q.sn) base = base.where('sn', 'like', `%${q.sn.replace(/[%_\\]/g, (c) => `\\${c}`)}%`);
    if (q.onlineState !== undefined) base = base.where('online_state', '=', q.onlineState);
    const [{ total }, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      base
        .selectAll()
        .orderBy('id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNum - 1) * q.pageSize)
        .execute(),
    ]);
    return { total: Number(total), list: rows.map(toDeviceView) };
  }
}
