import type { Generated } from 'kysely';

// Tables of migration 0009 (telemetry and reports). Times are epoch ms; percentages 0-100; bytes as bigint.

export interface TelemetrySampleTable {
  id: Generated<number>;
  sn: string;
  org_id: number;
  time: number;
  cpu: number;
  mem_used: number;
  mem_total: number;
  battery: number | null;
}

/** Per organisation, model and UTC hour: devices that reported in the hour, samples and load sums. */
export interface TelemetryHourlyTable {
  org_id: number;
  model: string;
  hour: number;
  device_hours: number;
  samples: number;
  cpu_sum: number;
  mem_sum: number;
}

/** Latest state of a device: load (from status uploads) and location (from location uploads). */
export interface DeviceTelemetryTable {
  sn: string;
  org_id: number;
  time: number | null;
  cpu: number | null;
  mem_used: number | null;
  mem_total: number | null;
  battery: number | null;
  country: string | null;
  region: string | null;
  lat: number | null;
  lng: number | null;
  located_at: number | null;
}

export interface AbnormalEventTable {
  id: Generated<number>;
  sn: string;
  org_id: number;
  model: string;
  type: string;
  time: number;
  cpu: number;
  /** Memory in use, percent. */
  memory: number;
  detail: string;
}

/** Abnormal records per organisation, type and UTC hour. */
export interface AbnormalHourlyTable {
  org_id: number;
  type: string;
  hour: number;
  n: number;
}

/** A console session as the usage report counts it; survives logout. */
export interface UsageSessionTable {
  token_hash: string;
  account_id: number;
  account: string;
  org_id: number;
  started_at: number;
  last_active_at: number;
  active_ms: number;
  requests: number;
}

export interface TelemetryTables {
  telemetry_samples: TelemetrySampleTable;
  telemetry_hourly: TelemetryHourlyTable;
  device_telemetry: DeviceTelemetryTable;
  abnormal_events: AbnormalEventTable;
  abnormal_hourly: AbnormalHourlyTable;
  usage_sessions: UsageSessionTable;
}
