import { sql } from 'kysely';
import type { AbnormalRecord, PeriodBucket } from '../../protocol/api/reports.ts';
import type { Db } from '../db/database.ts';
import { countByPeriod } from './periods.ts';
import { inScope, num, type RangeQuery, type Scope } from './report-scope.ts';

/** Abnormal records (CPU or memory over the thresholds): the page the report lists, and the rows its export writes. */
export interface AbnormalQuery extends RangeQuery {
  readonly type?: string | undefined;
  readonly cpuMin?: number | undefined;
  readonly memoryMin?: number | undefined;
  readonly sn?: string | undefined;
}

function abnormalBase(db: Db, scope: Scope, q: AbnormalQuery) {
  let b = db
    .selectFrom('abnormal_events')
    .where(inScope(db, 'org_id', scope))
    .where('time', '>=', q.from)
    .where('time', '<', q.to);
  if (q.type) b = b.where('type', '=', q.type);
  if (q.cpuMin !== undefined) b = b.where('cpu', '>=', q.cpuMin);
  if (q.memoryMin !== undefined) b = b.where('memory', '>=', q.memoryMin);
  if (q.sn) b = b.where('sn', '=', q.sn);
  return b;
}

/** Abnormal counts by type and per period, and one page of the records (newest first). */
export async function abnormalReport(db: Db, scope: Scope, q: AbnormalQuery, page: { pageNum: number; pageSize: number }) {
  const range = { from: q.from, to: q.to, period: q.period, tz: q.tz };
  if (scope.orgIds.length === 0) return { total: 0, byType: [], buckets: countByPeriod([], () => 0, range).buckets, series: [], list: [] };
  // Counted per type and hour in SQL, then by period in the caller's zone: the row count stays small
  // however many events there are. Without a load or SN filter the hourly rollup answers; with one, the
  // records themselves are grouped.
  const hourExpr = sql<number>`(time / 3600000) * 3600000`;
  const fromHour = Math.floor(q.from / 3_600_000) * 3_600_000;
  // The rollup's last hour may run past `to` only when `to` is now or later (nothing is recorded after now).
  const needsRecords = q.cpuMin !== undefined || q.memoryMin !== undefined || q.sn !== undefined || q.from !== fromHour || (q.to % 3_600_000 !== 0 && q.to < q.now);
  const perHour = needsRecords
    ? await abnormalBase(db, scope, q)
        .select((eb) => ['type', hourExpr.as('hour'), eb.fn.countAll<number | string>().as('n')])
        .groupBy(['type', hourExpr])
        .execute()
    : await db
        .selectFrom('abnormal_hourly')
        .select((eb) => ['type', 'hour', eb.fn.sum<number | string>('n').as('n')])
        .where(inScope(db, 'org_id', scope))
        .where('hour', '>=', q.from)
        .where('hour', '<', q.to)
        .$if(q.type !== undefined, (b) => b.where('type', '=', q.type as string))
        .groupBy(['type', 'hour'])
        .execute();
  const types = [...new Set(perHour.map((r) => r.type))].sort();
  let buckets: PeriodBucket[] = countByPeriod([], () => 0, range).buckets;
  const series = types.map((type) => {
    const c = countByPeriod(
      perHour.filter((r) => r.type === type),
      (r) => Math.max(num(r.hour), q.from),
      range,
      (r) => num(r.n),
    );
    buckets = c.buckets;
    return { type, counts: c.counts };
  });
  const byType = series.map((s) => ({ type: s.type, count: s.counts.reduce((a, b) => a + b, 0) })).sort((a, b) => b.count - a.count);
  const total = byType.reduce((n, t) => n + t.count, 0);
  const list = await abnormalRecords(db, scope, q, page.pageSize, (page.pageNum - 1) * page.pageSize);
  return { total, byType, buckets, series, list };
}

/** Abnormal records matching the query, newest first. */
export async function abnormalRecords(db: Db, scope: Scope, q: AbnormalQuery, limit: number, offset = 0): Promise<AbnormalRecord[]> {
  if (scope.orgIds.length === 0) return [];
  const rows = await abnormalBase(db, scope, q)
    .select(['id', 'sn', 'model', 'type', 'time', 'cpu', 'memory', 'detail'])
    .orderBy('time', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({ id: r.id, sn: r.sn, model: r.model, type: r.type, time: num(r.time), cpu: num(r.cpu), memory: num(r.memory), detail: r.detail }));
}
