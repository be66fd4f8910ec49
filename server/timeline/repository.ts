import type { TimelineEntry, TimelineSource } from '../../protocol/api/timeline.ts';
import type { Page } from '../../protocol/api/devices.ts';
import type { Db } from '../db/database.ts';
import type { TimelineRow } from './tables.ts';

export interface TimelineQuery {
  readonly sn: string;
  /** The reader's organisations; undefined when it reaches every one. */
  readonly scope: ReadonlySet<number> | undefined;
  readonly from?: number;
  readonly to?: number;
  readonly pageNum: number;
  readonly pageSize: number;
}

function entryOf(row: TimelineRow): TimelineEntry {
  return {
    id: Number(row.id),
    sn: row.sn,
    time: Number(row.sent_at),
    account: row.account,
    source: row.source as TimelineSource,
    msgId: Number(row.msg_id),
    params: row.params,
    result: Number(row.result),
    message: row.message,
    durationMs: Number(row.duration_ms),
    recordingId: row.recording_id,
  };
}

/**
 * One device's timeline, newest first: only the entries written while the device was in one of the
 * reader's organisations (a device moved in keeps its earlier owner's history to that owner).
 */
export async function listTimeline(db: Db, q: TimelineQuery): Promise<Page<TimelineEntry>> {
  let base = db.selectFrom('device_timeline').where('sn', '=', q.sn);
  if (q.scope) base = base.where('org_id', 'in', [...q.scope]);
  if (q.from !== undefined) base = base.where('sent_at', '>=', q.from);
  if (q.to !== undefined) base = base.where('sent_at', '<=', q.to);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst(),
    base.selectAll().orderBy('sent_at', 'desc').orderBy('id', 'desc').limit(q.pageSize).offset((q.pageNum - 1) * q.pageSize).execute(),
  ]);
  return { total: Number(count?.n ?? 0), list: rows.map(entryOf) };
}

/** The organisation of device `sn`, or undefined when there is no such device. */
export async function deviceOrgOf(db: Db, sn: string): Promise<number | undefined> {
  return (await db.selectFrom('devices').select('org_id').where('sn', '=', sn).executeTakeFirst())?.org_id;
}
