// Report shapes as the server answers them (devices-and-commerce section 9; docs/DECISIONS.md, "Reports"):
// one definition for both sides. The query strings are TypeBox schemas with their types derived.
import { type Static, Type } from 'typebox';
import { OneOf, PAGE_SIZES } from './common.ts';

/** Statistic periods (devices-and-commerce section 9). */
export const PERIODS = ['DATE', 'WEEK', 'MONTH', 'YEAR'] as const;
export type Period = (typeof PERIODS)[number];

/** Report buckets (devices-and-commerce section 9): under 1 week, at least 1 week, 1 month, 3 months, 1 year. */
export const AGE_BUCKETS = ['lt1w', 'ge1w', 'ge1m', 'ge3m', 'ge1y'] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];

/** Formats every report can be exported in. */
export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One period in a time zone: its label and its half-open interval [start, end) in epoch ms. */
export interface PeriodBucket {
  /** yyyy-MM-dd for DATE and WEEK (the Monday), yyyy-MM for MONTH, yyyy for YEAR. */
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/** CPU and memory percentages at or above which a status counts as abnormal (a type, so i18next takes it as options). */
export type UsageThresholds = { readonly cpu: number; readonly memory: number };

export interface ModelRow {
  readonly model: string;
  readonly total: number;
  readonly online: number;
  /** Devices online now / devices, percent. */
  readonly onlineRate: number;
  /** Device-hours with a report in the range / device-hours in the range, percent. */
  readonly periodOnlineRate: number;
  readonly avgCpu: number;
  readonly avgMemory: number;
  readonly versions: readonly { version: string; count: number }[];
}

export interface MultiModelReport {
  readonly models: readonly ModelRow[];
  readonly buckets: readonly PeriodBucket[];
  /** Per model, the online rate (percent) of each bucket. */
  readonly series: readonly { model: string; onlineRate: number[]; samples: number[] }[];
  /** Devices by time since enrolment, per spec bucket. */
  readonly ages: readonly { bucket: AgeBucket; count: number }[];
}

export interface LocationReport {
  readonly countries: readonly { country: string; devices: number; online: number }[];
  readonly regions: readonly { country: string; region: string; devices: number; online: number }[];
  readonly located: number;
  readonly unlocated: number;
}

export interface MapPoint {
  readonly lat: number;
  readonly lng: number;
  readonly count: number;
  readonly online: number;
  /** The device's serial when the point is a single device. */
  readonly sn?: string;
}

export interface AbnormalRecord {
  readonly id: number;
  readonly sn: string;
  readonly model: string;
  readonly type: string;
  readonly time: number;
  readonly cpu: number;
  readonly memory: number;
  readonly detail: string;
}

export interface UsageReport {
  readonly accounts: readonly { accountId: number; account: string; orgId: number; orgName: string; sessions: number; activeMs: number; requests: number; lastActive: number }[];
  readonly organisations: readonly { orgId: number; orgName: string; accounts: number; sessions: number; activeMs: number }[];
}

export interface DashboardReport {
  readonly totals: { devices: number; online: number; offline: number; organisations: number; accounts: number; abnormalToday: number };
  readonly usage: { avgCpu: number; memUsed: number; memTotal: number; reporting: number };
  readonly topFive: readonly { sn: string; model: string; cpu: number; memUsed: number; memTotal: number; time: number }[];
  readonly locations: readonly { country: string; devices: number }[];
  readonly alerts: readonly { sn: string; model: string; cpu: number; memory: number; time: number }[];
  readonly models: readonly { model: string; devices: number }[];
  readonly trend: DashboardTrend;
}

/** Hours the dashboard's trend covers: seven days, so the console can show the last 24 hours or all 7 days. */
export const DASHBOARD_TREND_HOURS = 168;

/**
 * The dashboard's trend, one value per hour, oldest first, ending with the current hour: devices that
 * reported status in the hour (online during it) and abnormal records raised in it.
 */
export interface DashboardTrend {
  /** Start of each hour, epoch ms. */
  readonly hours: readonly number[];
  readonly online: readonly number[];
  readonly abnormal: readonly number[];
}

/** One entry of the operation log (not in the spec's API). */
export interface OperationLogEntry {
  readonly id: number;
  readonly accountId: number | null;
  readonly account: string;
  readonly orgId: number | null;
  readonly method: string;
  readonly path: string;
  readonly target: string;
  readonly code: number;
  readonly ip: string;
  readonly createTime: number;
  /** The API token the request was made with; '' for a login session (issue 23). */
  readonly tokenName: string;
  /** The target's name when the call ran ('' when none); the action's name comes from auditActionName. */
  readonly targetName: string;
}

/** An abnormal-statistics page: counts by type and period, and one page of the records. */
export interface AbnormalReport {
  readonly total: number;
  readonly byType: readonly { type: string; count: number }[];
  readonly buckets: readonly PeriodBucket[];
  readonly series: readonly { type: string; counts: number[] }[];
  readonly list: readonly AbnormalRecord[];
  readonly thresholds: UsageThresholds;
}

/** The dashboard as the console reads it: the analytics and the thresholds they were judged by. */
export interface DashboardView extends DashboardReport {
  readonly thresholds: UsageThresholds;
}

/** Answer of /report/map: the points at a zoom level and how many devices they hold. */
export interface MapReport {
  readonly points: readonly MapPoint[];
  readonly devices: number;
}

// Query strings: every value is a string (the server does not coerce types); the console sends numbers
// as their decimal text (src/api/request.ts), which QueryInput below allows.
const Digits = Type.String({ pattern: '^[0-9]{1,15}$' });
const Percent = Type.String({ pattern: '^(100|[0-9]{1,2})(\\.[0-9]+)?$' });

const ReportScopeProperties = {
  orgId: Type.Optional(Digits),
  startTime: Type.Optional(Digits),
  endTime: Type.Optional(Digits),
  period: Type.Optional(OneOf(PERIODS)),
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  /** Export header language: 1 Chinese, 2 English (platform-core section 9). */
  lang: Type.Optional(OneOf(['1', '2'])),
};
const ExportProperties = { format: OneOf(EXPORT_FORMATS) };
const AbnormalProperties = {
  type: Type.Optional(Type.String({ maxLength: 32 })),
  cpuMin: Type.Optional(Percent),
  memoryMin: Type.Optional(Percent),
  sn: Type.Optional(Type.String({ maxLength: 64 })),
  pageNum: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  pageSize: Type.Optional(OneOf(PAGE_SIZES.map(String))),
};

/** GET /report/multi-model, /report/location, /report/usage, /report/dashboard: scope, range, period, zone. */
export const ReportQuery = Type.Object(ReportScopeProperties, { additionalProperties: false });
export type ReportQuery = Static<typeof ReportQuery>;

/** GET /report/{multi-model,location,usage}/export: the report's query and the file format. */
export const ReportExportQuery = Type.Object({ ...ReportScopeProperties, ...ExportProperties }, { additionalProperties: false });
export type ReportExportQuery = Static<typeof ReportExportQuery>;

/** GET /report/map: the report's query and the zoom level (0 countries .. 6). */
export const MapQuery = Type.Object({ ...ReportScopeProperties, level: Type.Optional(Type.String({ pattern: '^[0-6]$' })) }, { additionalProperties: false });
export type MapQuery = Static<typeof MapQuery>;

/** GET /report/abnormal: the report's query, the record filters and a page. */
export const AbnormalQuery = Type.Object({ ...ReportScopeProperties, ...AbnormalProperties }, { additionalProperties: false });
export type AbnormalQuery = Static<typeof AbnormalQuery>;

/** GET /report/abnormal/export. */
export const AbnormalExportQuery = Type.Object({ ...ReportScopeProperties, ...AbnormalProperties, ...ExportProperties }, { additionalProperties: false });
export type AbnormalExportQuery = Static<typeof AbnormalExportQuery>;

/**
 * A query as a caller gives it: each value optional, and a number where the wire has digits (the request
 * helper sends it as its decimal text).
 */
export type QueryInput<T> = { readonly [K in keyof T]?: T[K] | (string extends T[K] ? number : never) | undefined };

/** Filters every report takes: organisation subtree, time range (epoch ms), period and the viewer's time zone. */
export type ReportFilter = QueryInput<Omit<ReportQuery, 'lang'>>;
/** The abnormal report's filters (paging and the export's fields are the call's own arguments). */
export type AbnormalFilter = QueryInput<Omit<AbnormalQuery, 'lang' | 'pageNum' | 'pageSize'>>;
