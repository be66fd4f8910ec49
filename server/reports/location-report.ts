import { sql } from 'kysely';
import { OnlineState } from '../../protocol/index.ts';
import type { LocationReport, MapPoint } from '../../protocol/api/reports.ts';
import type { Db } from '../db/database.ts';
import { inScope, num, type Scope } from './report-scope.ts';

/** Devices by country and region of their latest location upload. */
export async function locationReport(db: Db, scope: Scope): Promise<LocationReport> {
  if (scope.orgIds.length === 0) return { countries: [], regions: [], located: 0, unlocated: 0 };
  const rowsQuery = db
    .selectFrom('device_telemetry as t')
    .innerJoin('devices as d', 'd.sn', 't.sn')
    .select(['t.country', 't.region'])
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string>(eb.case().when('d.online_state', '=', OnlineState.Online).then(1).else(0).end()).as('online')])
    .where(inScope(db, 'd.org_id', scope))
    .where('t.country', 'is not', null)
    .groupBy(['t.country', 't.region'])
    .execute();
  const totalQuery = db.selectFrom('devices').select((eb) => eb.fn.countAll<number | string>().as('n')).where(inScope(db, 'org_id', scope)).executeTakeFirstOrThrow();
  // Independent queries run together: PostgreSQL answers them on separate pooled connections.
  const [rows, total] = await Promise.all([rowsQuery, totalQuery]);
  const countries = new Map<string, { country: string; devices: number; online: number }>();
  const regions = rows.map((r) => ({ country: r.country ?? '', region: r.region ?? '', devices: num(r.n), online: num(r.online) }));
  for (const r of regions) {
    const c = countries.get(r.country) ?? { country: r.country, devices: 0, online: 0 };
    c.devices += r.devices;
    c.online += r.online;
    countries.set(r.country, c);
  }
  const located = regions.reduce((n, r) => n + r.devices, 0);
  return {
    countries: [...countries.values()].sort((a, b) => b.devices - a.devices || a.country.localeCompare(b.country)),
    regions: regions.sort((a, b) => b.devices - a.devices || a.country.localeCompare(b.country) || a.region.localeCompare(b.region)),
    located,
    unlocated: Math.max(0, num(total.n) - located),
  };
}

/** Grid cell size in degrees for a clustering level (0 whole world .. 6 close up). */
export function cellDegrees(level: number): number {
  return 20 / 2 ** Math.max(0, Math.min(6, level));
}

/**
 * Device positions clustered on a grid in the database (so 100,000 devices become at most a few
 * thousand points); each cluster sits at its devices' mean position.
 */
export async function mapPoints(db: Db, scope: Scope, level: number): Promise<{ points: MapPoint[]; devices: number }> {
  if (scope.orgIds.length === 0) return { points: [], devices: 0 };
  const cell = cellDegrees(level);
  // The cell size is inlined, not bound: PostgreSQL matches GROUP BY to SELECT expressions textually,
  // and two bound parameters would make them different expressions.
  const size = sql.raw(String(cell));
  const gx = sql<number>`floor(t.lng / ${size})`;
  const gy = sql<number>`floor(t.lat / ${size})`;
  const rows = await db
    .selectFrom('device_telemetry as t')
    .innerJoin('devices as d', 'd.sn', 't.sn')
    .select((eb) => [
      gx.as('gx'),
      gy.as('gy'),
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.avg<number | string>('t.lat').as('lat'),
      eb.fn.avg<number | string>('t.lng').as('lng'),
      eb.fn.min<string>('t.sn').as('sn'),
      eb.fn.sum<number | string>(eb.case().when('d.online_state', '=', OnlineState.Online).then(1).else(0).end()).as('online'),
    ])
    .where(inScope(db, 'd.org_id', scope))
    .where('t.lat', 'is not', null)
    .groupBy([gx, gy])
    .execute();
  const points = rows.map((r) => {
    const count = num(r.n);
    return { lat: num(r.lat), lng: num(r.lng), count, online: num(r.online), ...(count === 1 ? { sn: r.sn } : {}) };
  });
  return { points, devices: points.reduce((n, p) => n + p.count, 0) };
}
