import type { Generated, Selectable } from 'kysely';

/** A recorded session (migration 0024, issue 22): its cast file is DATA_DIR/recordings/<id>.cast. */
export interface RecordingTable {
  /** Random id, also the file's name. */
  id: string;
  org_id: number;
  sn: string;
  account: string;
  /** 'shell' or 'live'. */
  kind: string;
  started_at: number;
  /** Null while the session runs (or when the process died during it). */
  ended_at: number | null;
  /** Size of the cast file when it ended. */
  bytes: number;
}

/** One replay or download of a recording (migration 0028): who watched and when. */
export interface RecordingViewTable {
  id: Generated<number>;
  recording_id: string;
  account: string;
  /** 'replay' (the console's replay page) or 'download'. */
  purpose: string;
  at: number;
}

export interface RecordingTables {
  recordings: RecordingTable;
  recording_views: RecordingViewTable;
}

export type RecordingRow = Selectable<RecordingTable>;

/** An organisation's recording policy: off, on, or required (no recording, no shell). */
export type RecordingPolicy = 'off' | 'on' | 'required';
export const RECORDING_POLICIES: readonly RecordingPolicy[] = ['off', 'on', 'required'];
