import { type DeviceView, OnlineState } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';

/** A device marked offline on behalf of the node that held it. */
export type ReleasedDevice = Pick<DeviceView, 'sn' | 'orgId'>;

/**
 * Online devices by the gateway node holding them (devices.node_id). A node killed outright cannot mark
 * its devices offline; the nodes that outlive it do, and each row changes once however many nodes try,
 * so only the node whose statement changed a row announces it.
 */
export class DeviceHolders {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Marks offline every device still online on one of `nodes` (they died); returns those it changed. */
  async release(nodes: readonly string[], now: number): Promise<ReleasedDevice[]> {
    if (nodes.length === 0) return [];
    const rows = await this.#db
      .updateTable('devices')
      .set({ online_state: OnlineState.Offline, offline_time: now, node_id: null })
      .where('online_state', '=', OnlineState.Online)
      .where('node_id', 'in', nodes)
      .returning(['sn', 'org_id'])
      .execute();
    return rows.map((r) => ({ sn: r.sn, orgId: r.org_id }));
  }

  /**
   * Records again that `nodeId` holds a connected device another node marked offline (it took this node
   * for dead while a busy bus delayed its beats).
   */
  async reclaim(sn: string, nodeId: string): Promise<void> {
    await this.#db.updateTable('devices').set({ online_state: OnlineState.Online, node_id: nodeId }).where('sn', '=', sn).execute();
  }

  /** Records many devices as online and held by `nodeId`, in statements of at most 1,000 serials. */
  async reclaimMany(sns: readonly string[], nodeId: string): Promise<void> {
    for (let i = 0; i < sns.length; i += 1_000) {
      const batch = sns.slice(i, i + 1_000);
      await this.#db.updateTable('devices').set({ online_state: OnlineState.Online, node_id: nodeId }).where('sn', 'in', batch).execute();
    }
  }

  /**
   * Marks offline every device online since before `loggedInBefore` that is held by none of `alive` (nodes
   * that died while no other node was listening, say the whole cluster at once); returns those it changed.
   */
  async releaseAllBut(alive: readonly string[], loggedInBefore: number, now: number): Promise<ReleasedDevice[]> {
    const rows = await this.#db
      .updateTable('devices')
      .set({ online_state: OnlineState.Offline, offline_time: now, node_id: null })
      .where('online_state', '=', OnlineState.Online)
      .where('latest_online_time', '<', loggedInBefore)
      .where((eb) => eb.or([eb('node_id', 'is', null), eb('node_id', 'not in', alive.length > 0 ? alive : [''])]))
      .returning(['sn', 'org_id'])
      .execute();
    return rows.map((r) => ({ sn: r.sn, orgId: r.org_id }));
  }
}
