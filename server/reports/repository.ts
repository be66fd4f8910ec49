import { sql } from 'kysely';
import { OnlineState } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { AGE_BUCKETS, type AgeBucket, DASHBOARD_TREND_HOURS, type DashboardReport, type DashboardTrend, type ModelRow, type MultiModelReport, type PeriodBucket, type UsageReport } from '../../protocol/api/reports.ts';
import { ageBucketCounts, countByPeriod, coveredHours, HOUR_MS, rate } from './periods.ts';
import { inScope, num, type RangeQuery, type Scope } from './report-scope.ts';

/** Multi-model analysis: counts, online rates and versions by model, and online rate per period. */
export async function multiModelReport(db: Db, scope: Scope, q: RangeQuery): Promise<MultiModelReport> {
  if (scope.orgIds.length === 0) return { models: [], buckets: [], series: [], ages: AGE_BUCKETS.map((bucket) => ({ bucket, count: 0 })) };
  const countsQuery = db
    .selectFrom('devices')
    .select(['model', 'image_version'])
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string>(eb.case().when('online_state', '=', OnlineState.Online).then(1).else(0).end()).as('online')])
    .where(inScope(db, 'org_id', scope))
    .groupBy(['model', 'image_version'])
    .execute();
  // Age buckets by enrolment time: [lower, upper) bounds of time since enrolment, per spec bucket.
  const ageBounds: [AgeBucket, number, number][] = [
    ['lt1w', 0, 7],
    ['ge1w', 7, 30],
    ['ge1m', 30, 90],
    ['ge3m', 90, 365],
    ['ge1y', 365, Number.POSITIVE_INFINITY],
  ];
  const ageRowsQuery = db
    .selectFrom('devices')
    .select((eb) =>
      ageBounds.map(([bucket, lo, hi]) => {
        const enrolledBefore = eb('created_at', '<=', q.now - lo * 86_400_000);
        const cond = hi === Number.POSITIVE_INFINITY ? enrolledBefore : eb.and([enrolledBefore, eb('created_at', '>', q.now - hi * 86_400_000)]);
        return eb.fn.sum<number | string>(eb.case().when(cond).then(1).else(0).end()).as(bucket);
      }),
    )
    .where(inScope(db, 'org_id', scope))
    .executeTakeFirst();
  const hourlyQuery = db
    .selectFrom('telemetry_hourly')
    .select(['model', 'hour'])
    .select((eb) => [eb.fn.sum<number | string>('device_hours').as('dh'), eb.fn.sum<number | string>('samples').as('s'), eb.fn.sum<number | string>('cpu_sum').as('c'), eb.fn.sum<number | string>('mem_sum').as('m')])
    .where(inScope(db, 'org_id', scope))
    .where('hour', '>=', q.from - 3_600_000)
    .where('hour', '<', q.to)
    .groupBy(['model', 'hour'])
    .execute();

  // Devices enrolled during the range, per model and hour: before its enrolment a device cannot be online,
  // so it does not count against the period's online rate.
  const enrolHour = sql<number>`(created_at / 3600000) * 3600000`;
  const enrolledQuery = db
    .selectFrom('devices')
    .select((eb) => ['model', enrolHour.as('hour'), eb.fn.countAll<number | string>().as('n')])
    .where(inScope(db, 'org_id', scope))
    .where('created_at', '>', q.from)
    .groupBy(['model', enrolHour])
    .execute();
  // Independent queries run together: PostgreSQL answers them on separate pooled connections.
  const [counts, ageRows, hourly, enrolled] = await Promise.all([countsQuery, ageRowsQuery, hourlyQuery, enrolledQuery]);
  const enrolments = new Map<string, { hour: number; n: number }[]>();
  for (const r of enrolled) {
    const list = enrolments.get(r.model) ?? [];
    list.push({ hour: num(r.hour), n: num(r.n) });
    enrolments.set(r.model, list);
  }
  const byModel = new Map<string, { total: number; online: number; versions: Map<string, number> }>();
  for (const r of counts) {
    const m = byModel.get(r.model) ?? { total: 0, online: 0, versions: new Map<string, number>() };
    m.total += num(r.n);
    m.online += num(r.online);
    m.versions.set(r.image_version, (m.versions.get(r.image_version) ?? 0) + num(r.n));
    byModel.set(r.model, m);
  }
  const rollup = new Map<string, { hour: number; dh: number; s: number; c: number; m: number }[]>();
  for (const r of hourly) {
    const list = rollup.get(r.model) ?? [];
    list.push({ hour: num(r.hour), dh: num(r.dh), s: num(r.s), c: num(r.c), m: num(r.m) });
    rollup.set(r.model, list);
  }
  const range = { from: q.from, to: q.to, period: q.period, tz: q.tz };
  const models: ModelRow[] = [];
  const series: { model: string; onlineRate: number[]; samples: number[] }[] = [];
  let buckets: PeriodBucket[] = countByPeriod([], () => 0, range).buckets;
  const names = [...new Set([...byModel.keys(), ...rollup.keys()])].sort();
  for (const model of names) {
    const m = byModel.get(model) ?? { total: 0, online: 0, versions: new Map<string, number>() };
    const rows = rollup.get(model) ?? [];
    // A sample of hour h counts toward the bucket that contains h; hours are whole, so zones with a
    // half-hour offset see the boundary hour in the earlier bucket (documented in DECISIONS.md).
    const dh = countByPeriod(rows, (r) => Math.max(r.hour, q.from), range, (r) => r.dh);
    const samples = countByPeriod(rows, (r) => Math.max(r.hour, q.from), range, (r) => r.s);
    const available = availableDeviceHours(enrolments.get(model) ?? [], m.total, q);
    buckets = dh.buckets;
    const sampleCount = rows.reduce((n, r) => n + r.s, 0);
    models.push({
      model,
      total: m.total,
      online: m.online,
      onlineRate: rate(m.online, m.total),
      periodOnlineRate: rate(dh.counts.reduce((a, b) => a + b, 0), available.reduce((a, b) => a + b, 0)),
      avgCpu: sampleCount ? rows.reduce((n, r) => n + r.c, 0) / sampleCount : 0,
      avgMemory: sampleCount ? rows.reduce((n, r) => n + r.m, 0) / sampleCount : 0,
      versions: [...m.versions.entries()].map(([version, count]) => ({ version, count })).sort((a, b) => b.count - a.count || a.version.localeCompare(b.version)),
    });
    series.push({ model, onlineRate: dh.counts.map((n, i) => rate(n, available[i] ?? 0)), samples: samples.counts });
  }
  const ages = AGE_BUCKETS.map((bucket) => ({ bucket, count: num(ageRows?.[bucket]) }));
  return { models, buckets, series, ages };
}

/**
 * Device-hours each period of the range could have been online: every hour from the range start (or the
 * device's enrolment hour) to the range end or now. `total` devices exist now; `enrolments` are those
 * enrolled inside the range, by hour.
 */
export function availableDeviceHours(enrolments: readonly { hour: number; n: number }[], total: number, q: RangeQuery): number[] {
  const sorted = [...enrolments].sort((a, b) => a.hour - b.hour);
  let present = total - sorted.reduce((n, e) => n + e.n, 0);
  const hours: { hour: number; weight: number }[] = [];
  let next = 0;
  const end = Math.min(q.to, q.now);
  for (let h = Math.floor(q.from / HOUR_MS) * HOUR_MS; h < end; h += HOUR_MS) {
    while (next < sorted.length && (sorted[next] as { hour: number }).hour <= h) present += (sorted[next++] as { n: number }).n;
    const covered = coveredHours({ start: h, end: h + HOUR_MS }, q, q.now);
    if (covered > 0) hours.push({ hour: Math.max(h, q.from), weight: present * covered });
  }
  return countByPeriod(hours, (x) => x.hour, q, (x) => x.weight).counts;
}

/** The same age buckets from raw enrolment times (used to cross-check the SQL in tests). */
export function agesFromTimes(createdAt: readonly number[], now: number): Record<AgeBucket, number> {
  return ageBucketCounts(createdAt.map((c) => now - c));
}

/** Platform usage: sessions and active time per account and per organisation, for sessions started in the range. */
export async function usageReport(db: Db, scope: Scope, q: { from: number; to: number }): Promise<UsageReport> {
  if (scope.orgIds.length === 0) return { accounts: [], organisations: [] };
  const rows = await db
    .selectFrom('usage_sessions as u')
    .leftJoin('organisations as o', 'o.id', 'u.org_id')
    .select(['u.account_id', 'u.account', 'u.org_id', 'o.name as org_name'])
    .select((eb) => [
      eb.fn.countAll<number | string>().as('sessions'),
      eb.fn.sum<number | string>('u.active_ms').as('active'),
      eb.fn.sum<number | string>('u.requests').as('requests'),
      eb.fn.max<number | string>('u.last_active_at').as('last'),
    ])
    .where(inScope(db, 'u.org_id', scope))
    .where('u.last_active_at', '>=', q.from)
    .where('u.started_at', '<', q.to)
    .groupBy(['u.account_id', 'u.account', 'u.org_id', 'o.name'])
    .execute();
  const accounts = rows
    .map((r) => ({
      accountId: r.account_id,
      account: r.account,
      orgId: r.org_id,
      orgName: r.org_name ?? '',
      sessions: num(r.sessions),
      activeMs: num(r.active),
      requests: num(r.requests),
      lastActive: num(r.last),
    }))
    .sort((a, b) => b.activeMs - a.activeMs || a.account.localeCompare(b.account));
  const orgs = new Map<number, { orgId: number; orgName: string; accounts: number; sessions: number; activeMs: number }>();
  for (const a of accounts) {
    const o = orgs.get(a.orgId) ?? { orgId: a.orgId, orgName: a.orgName, accounts: 0, sessions: 0, activeMs: 0 };
    o.accounts++;
    o.sessions += a.sessions;
    o.activeMs += a.activeMs;
    orgs.set(a.orgId, o);
  }
  return { accounts, organisations: [...orgs.values()].sort((a, b) => b.activeMs - a.activeMs) };
}

/** The dashboard's analytics for a scope; `thresholds` decide what counts as high usage. */
export async function dashboardReport(db: Db, scope: Scope, now: number, dayStart: number, thresholds: { cpu: number; memory: number }): Promise<DashboardReport> {
  if (scope.orgIds.length === 0) {
    return { totals: { devices: 0, online: 0, offline: 0, organisations: 0, accounts: 0, abnormalToday: 0 }, usage: { avgCpu: 0, memUsed: 0, memTotal: 0, reporting: 0 }, topFive: [], locations: [], alerts: [], models: [], trend: emptyTrend(now) };
  }
  const devQuery = db
    .selectFrom('devices')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string>(eb.case().when('online_state', '=', OnlineState.Online).then(1).else(0).end()).as('online')])
    .where(inScope(db, 'org_id', scope))
    .executeTakeFirstOrThrow();
  const accountsQuery = db.selectFrom('accounts').select((eb) => eb.fn.countAll<number | string>().as('n')).where(inScope(db, 'org_id', scope)).executeTakeFirstOrThrow();
  const abnormalQuery = db.selectFrom('abnormal_events').select((eb) => eb.fn.countAll<number | string>().as('n')).where(inScope(db, 'org_id', scope)).where('time', '>=', dayStart).executeTakeFirstOrThrow();
  // Load reported within the last hour counts as current.
  const recent = now - 3_600_000;
  const usageQuery = db
    .selectFrom('device_telemetry')
    .select((eb) => [eb.fn.avg<number | string>('cpu').as('cpu'), eb.fn.sum<number | string>('mem_used').as('used'), eb.fn.sum<number | string>('mem_total').as('total'), eb.fn.countAll<number | string>().as('n')])
    .where(inScope(db, 'org_id', scope))
    .where('time', '>=', recent)
    .executeTakeFirstOrThrow();
  const topQuery = db
    .selectFrom('device_telemetry as t')
    .innerJoin('devices as d', 'd.sn', 't.sn')
    .select(['t.sn', 'd.model', 't.cpu', 't.mem_used', 't.mem_total', 't.time'])
    .where(inScope(db, 't.org_id', scope))
    .where('t.time', '>=', recent)
    .orderBy('t.cpu', 'desc')
    .orderBy('t.sn')
    .limit(5)
    .execute();
  const alertsQuery = db
    .selectFrom('device_telemetry as t')
    .innerJoin('devices as d', 'd.sn', 't.sn')
    .select(['t.sn', 'd.model', 't.cpu', 't.mem_used', 't.mem_total', 't.time'])
    .where(inScope(db, 't.org_id', scope))
    .where('t.time', '>=', recent)
    .where((eb) => eb.or([eb('t.cpu', '>=', thresholds.cpu), eb(sql<number>`t.mem_used * 100.0 / t.mem_total`, '>=', thresholds.memory)]))
    .orderBy('t.time', 'desc')
    .limit(20)
    .execute();
  const locationsQuery = db
    .selectFrom('device_telemetry')
    .select(['country'])
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where(inScope(db, 'org_id', scope))
    .where('country', 'is not', null)
    .groupBy('country')
    .orderBy('n', 'desc')
    .limit(10)
    .execute();
  const modelsQuery = db
    .selectFrom('devices')
    .select(['model'])
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where(inScope(db, 'org_id', scope))
    .groupBy('model')
    .orderBy('n', 'desc')
    .execute();
  // Independent queries run together: PostgreSQL answers them on separate pooled connections.
  const [dev, accounts, abnormal, usage, top, alerts, locations, models, trend] = await Promise.all([
    devQuery,
    accountsQuery,
    abnormalQuery,
    usageQuery,
    topQuery,
    alertsQuery,
    locationsQuery,
    modelsQuery,
    dashboardTrend(db, scope, now),
  ]);
  const devices = num(dev.n);
  const online = num(dev.online);
  return {
    totals: { devices, online, offline: devices - online, organisations: scope.orgIds.length, accounts: num(accounts.n), abnormalToday: num(abnormal.n) },
    usage: { avgCpu: num(usage.cpu), memUsed: num(usage.used), memTotal: num(usage.total), reporting: num(usage.n) },
    topFive: top.map((r) => ({ sn: r.sn, model: r.model, cpu: num(r.cpu), memUsed: num(r.mem_used), memTotal: num(r.mem_total), time: num(r.time) })),
    locations: locations.map((r) => ({ country: r.country ?? '', devices: num(r.n) })),
    alerts: alerts.map((r) => ({ sn: r.sn, model: r.model, cpu: num(r.cpu), memory: num(r.mem_total) > 0 ? (num(r.mem_used) / num(r.mem_total)) * 100 : 0, time: num(r.time) })),
    models: models.map((r) => ({ model: r.model, devices: num(r.n) })),
    trend,
  };
}

/** The trend's hours, ending with the one `now` is in, all zero. */
function emptyTrend(now: number): DashboardTrend {
  const last = Math.floor(now / HOUR_MS) * HOUR_MS;
  const hours = Array.from({ length: DASHBOARD_TREND_HOURS }, (_, i) => last - (DASHBOARD_TREND_HOURS - 1 - i) * HOUR_MS);
  return { hours, online: hours.map(() => 0), abnormal: hours.map(() => 0) };
}

/**
 * Online devices and abnormal records per hour over the last seven days, from the hourly rollups (a few
 * thousand rows at most per organisation), so the dashboard never reads the raw records.
 */
async function dashboardTrend(db: Db, scope: Scope, now: number): Promise<DashboardTrend> {
  const empty = emptyTrend(now);
  const from = empty.hours[0] ?? now;
  const [online, abnormal] = await Promise.all([
    db
      .selectFrom('telemetry_hourly')
      .select((eb) => ['hour', eb.fn.sum<number | string>('device_hours').as('n')])
      .where(inScope(db, 'org_id', scope))
      .where('hour', '>=', from)
      .groupBy('hour')
      .execute(),
    db
      .selectFrom('abnormal_hourly')
      .select((eb) => ['hour', eb.fn.sum<number | string>('n').as('n')])
      .where(inScope(db, 'org_id', scope))
      .where('hour', '>=', from)
      .groupBy('hour')
      .execute(),
  ]);
  const slot = (hour: unknown) => Math.round((num(hour) - from) / HOUR_MS);
  const onlineCounts = [...empty.online];
  const abnormalCounts = [...empty.abnormal];
  for (const r of online) if (slot(r.hour) >= 0 && slot(r.hour) < DASHBOARD_TREND_HOURS) onlineCounts[slot(r.hour)] = num(r.n);
  for (const r of abnormal) if (slot(r.hour) >= 0 && slot(r.hour) < DASHBOARD_TREND_HOURS) abnormalCounts[slot(r.hour)] = num(r.n);
  return { hours: empty.hours, online: onlineCounts, abnormal: abnormalCounts };
}
