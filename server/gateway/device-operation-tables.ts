import type { Generated, Selectable } from 'kysely';

/**
 * State of a held command: waiting for its device, being delivered, answered, past its time-to-live, or
 * cancelled (its device moved to another organisation, or its submitter lost the key or the device's reach).
 */
export type DeviceOperationState = 'waiting' | 'delivering' | 'done' | 'expired' | 'cancelled';

/** A command held for an offline device (migration 0007). */
export interface DeviceOperationTable {
  id: Generated<number>;
  sn: string;
  org_id: number;
  msg_id: number;
  /** The command's data as JSON. */
  data: string;
  state: DeviceOperationState;
  /** The device's result code once answered (5 when it dropped before answering). */
  result: number | null;
  /** The device's reply data as JSON. */
  reply: string | null;
  account_id: number | null;
  created_at: number;
  expires_at: number;
  delivered_at: number | null;
  finished_at: number | null;
}

export interface DeviceOperationTables {
  device_operations: DeviceOperationTable;
}

export type DeviceOperationRow = Selectable<DeviceOperationTable>;
