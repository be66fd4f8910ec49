import type { Generated, Insertable, Selectable } from 'kysely';

/** One command to one device (migration 0023, issue 22): written in batches by TimelineWriter. */
export interface DeviceTimelineTable {
  id: Generated<number>;
  /** The device's organisation when the command was sent: readers see only their organisations' entries. */
  org_id: number;
  sn: string;
  /** When the command was sent (epoch ms). */
  sent_at: number;
  /** Account name, or 'platform'. */
  account: string;
  /** console | rest | bulk | campaign | held | api (protocol/api/timeline.ts). */
  source: string;
  msg_id: number;
  /** Short parameter summary, without secrets. */
  params: string;
  result: number;
  message: string;
  duration_ms: number;
  recording_id: string | null;
}

export interface TimelineTables {
  device_timeline: DeviceTimelineTable;
}

export type TimelineRow = Selectable<DeviceTimelineTable>;
export type TimelineInsert = Insertable<DeviceTimelineTable>;
