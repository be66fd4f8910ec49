import type { Generated, Selectable } from 'kysely';

/** A dynamic group (migration 0026): a named device query of an organisation; members are evaluated, never stored. */
export interface DeviceGroupTable {
  id: Generated<number>;
  org_id: number;
  /** Who created it (null once the account is gone). */
  account_id: number | null;
  name: string;
  /** The query as protocol/api/groups.ts's GroupQuery, JSON. */
  query_json: string;
  created_at: number;
  updated_at: number;
}

/** A saved view of the device list (migration 0026): filters, columns and sort, private or shared in the organisation. */
export interface DeviceViewTable {
  id: Generated<number>;
  org_id: number;
  account_id: number;
  name: string;
  /** 1: every account of the organisation (and those above it) may load it; 0: its account only. */
  shared: Generated<number>;
  /** The view as protocol/api/groups.ts's SavedViewState, JSON. */
  state_json: string;
  created_at: number;
  updated_at: number;
}

export interface GroupTables {
  device_groups: DeviceGroupTable;
  device_views: DeviceViewTable;
}

export type DeviceGroupRow = Selectable<DeviceGroupTable>;
export type DeviceViewRow = Selectable<DeviceViewTable>;
