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

/**
 * The columns an entry is written with, in the order the writer queues their values: one flat array of
 * values per flush (no object per entry on the command path, and a cheap copy to the writing thread).
 */
export const TIMELINE_COLUMNS = ['org_id', 'sn', 'sent_at', 'account', 'source', 'msg_id', 'params', 'result', 'message', 'duration_ms', 'recording_id'] as const satisfies readonly (keyof TimelineInsert)[];

/** One queued value (an entry is TIMELINE_COLUMNS.length of them). */
export type TimelineValue = string | number | null;
