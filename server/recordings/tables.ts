import type { Selectable } from 'kysely';

/** A recorded session (migration 0024, issue 22): its cast file is DATA_DIR/recordings/<id>.cast. */
export interface RecordingTable {
  /** Random id, also the file's name. */
  id: string;
  org_id: number;
  sn: string;
  account: string;
  /** 'shell' (live view later). */
  kind: string;
  started_at: number;
  /** Null while the session runs (or when the process died during it). */
  ended_at: number | null;
  /** Size of the cast file when it ended. */
  bytes: number;
}

export interface RecordingTables {
  recordings: RecordingTable;
}

export type RecordingRow = Selectable<RecordingTable>;

/** An organisation's recording policy: off, on, or required (no recording, no shell). */
export type RecordingPolicy = 'off' | 'on' | 'required';
export const RECORDING_POLICIES: readonly RecordingPolicy[] = ['off', 'on', 'required'];
