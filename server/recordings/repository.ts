import type { Page } from '../../protocol/api/devices.ts';
import type { RecordingPurpose, RecordingView, RecordingWatch } from '../../protocol/api/timeline.ts';
import type { Db } from '../db/database.ts';
import { RECORDING_POLICIES, type RecordingPolicy, type RecordingRow } from './tables.ts';

export interface RecordingQuery {
  readonly sn?: string;
  readonly kind?: string;
  readonly from?: number;
  readonly to?: number;
  readonly pageNum: number;
  readonly pageSize: number;
  /** The reader's organisations; undefined when it reaches every one. */
  readonly scope: ReadonlySet<number> | undefined;
}

export const viewOf = (r: RecordingRow): RecordingView => ({
  id: r.id,
  orgId: Number(r.org_id),
  sn: r.sn,
  account: r.account,
  kind: r.kind,
  startedAt: Number(r.started_at),
  endedAt: r.ended_at === null ? null : Number(r.ended_at),
  bytes: Number(r.bytes),
});

export async function listRecordings(db: Db, q: RecordingQuery): Promise<Page<RecordingView>> {
  let base = db.selectFrom('recordings');
  if (q.scope) base = base.where('org_id', 'in', [...q.scope]);
  if (q.sn !== undefined) base = base.where('sn', '=', q.sn);
  if (q.kind !== undefined) base = base.where('kind', '=', q.kind);
  if (q.from !== undefined) base = base.where('started_at', '>=', q.from);
  if (q.to !== undefined) base = base.where('started_at', '<=', q.to);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst(),
    base.selectAll().orderBy('started_at', 'desc').orderBy('id').limit(q.pageSize).offset((q.pageNum - 1) * q.pageSize).execute(),
  ]);
  return { total: Number(count?.n ?? 0), list: rows.map(viewOf) };
}

export async function findRecording(db: Db, id: string): Promise<RecordingRow | undefined> {
  return db.selectFrom('recordings').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setRecordingPolicy(db: Db, orgId: number, policy: RecordingPolicy): Promise<void> {
  await db.updateTable('organisations').set({ recording_policy: policy }).where('id', '=', orgId).execute();
}

/** Notes that `account` watched (replayed or downloaded) recording `id` at `at`. */
export async function addRecordingView(db: Db, id: string, account: string, purpose: RecordingPurpose, at: number): Promise<void> {
  await db.insertInto('recording_views').values({ recording_id: id, account, purpose, at }).execute();
}

/** Who watched recording `id`, newest first. */
export async function recordingViews(db: Db, id: string, limit = 200): Promise<RecordingWatch[]> {
  const rows = await db.selectFrom('recording_views').select(['account', 'purpose', 'at']).where('recording_id', '=', id).orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ account: r.account, purpose: r.purpose === 'download' ? 'download' : 'replay', at: Number(r.at) }));
}

/** An organisation's recording policy ('off' when unknown). */
export async function recordingPolicy(db: Db, orgId: number): Promise<RecordingPolicy> {
  const row = await db.selectFrom('organisations').select('recording_policy').where('id', '=', orgId).executeTakeFirst();
  const p = row?.recording_policy as RecordingPolicy | undefined;
  return p && RECORDING_POLICIES.includes(p) ? p : 'off';
}
