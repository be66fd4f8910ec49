import { ProcessState, type ProcessStateCode } from './enums.ts';

/**
 * Payloads of the device-to-platform telemetry messages (ours: the spec names status upload, location
 * and abnormal records with their fields but not their wire form). Percentages are 0-100, memory and
 * storage are bytes, times are epoch milliseconds. PROTOCOL.md "Telemetry" is the contract.
 */

/** Status upload (command 3): the device's load now. Sent on login and then periodically. */
export interface StatusUpload {
  /** CPU load, percent 0-100. */
  readonly cpu: number;
  readonly memUsed: number;
  readonly memTotal: number;
  /** Battery level 0-100; absent on mains-powered terminals. */
  readonly battery?: number;
}

/** One process of a runtime info report (command 4), with the spec's single-letter state. */
export interface RuntimeProcess {
  /** Positive integer. */
  readonly pid: number;
  /** 1-256 characters. */
  readonly name: string;
  readonly state: ProcessStateCode;
  /**
   * Percent of the whole device's CPU, 0-100, like the status `cpu` (a device that measures per core, as
   * 65614 does, divides by its core count), so the platform can check it without knowing the cores.
   */
  readonly cpu: number;
  /** Resident memory in bytes. */
  readonly memUsed: number;
}

/** A runtime info report lists at most this many processes (the 65614 limit). */
export const MAX_RUNTIME_PROCESSES = 1_000;
/** Longest process name a runtime info report may carry. */
export const MAX_PROCESS_NAME = 256;

/** Runtime info (command 4): the status fields plus the busiest processes. */
export interface RuntimeInfo extends StatusUpload {
  readonly processes: readonly RuntimeProcess[];
}

/** Location upload (command 6): WGS-84 coordinates and where they are. */
export interface LocationUpload {
  readonly lat: number;
  readonly lng: number;
  /** ISO 3166-1 alpha-2 country code, upper case. */
  readonly country: string;
  /** Region (province, state) inside the country, as the device's geocoder names it. */
  readonly region: string;
}

/** Kinds of abnormal records; the spec lists the record's fields (type, time, CPU, memory), not its types. */
export const AbnormalType = {
  CpuHigh: 'cpu_high',
  MemoryHigh: 'memory_high',
  Crash: 'crash',
  Anr: 'anr',
  UnexpectedReboot: 'reboot',
  Overheat: 'overheat',
  LowStorage: 'low_storage',
} as const;
export type AbnormalTypeName = (typeof AbnormalType)[keyof typeof AbnormalType];

const abnormalTypes: ReadonlySet<string> = new Set(Object.values(AbnormalType));

/** Names of the abnormal record types, for the console and for exports (one copy). */
export const abnormalTypeLabels: Readonly<Record<AbnormalTypeName, { readonly en: string; readonly zh: string }>> = {
  cpu_high: { en: 'High CPU', zh: 'CPU过高' },
  memory_high: { en: 'High memory', zh: '内存过高' },
  crash: { en: 'Crash', zh: '崩溃' },
  anr: { en: 'Not responding', zh: '无响应' },
  reboot: { en: 'Unexpected reboot', zh: '异常重启' },
  overheat: { en: 'Overheating', zh: '过热' },
  low_storage: { en: 'Low storage', zh: '存储不足' },
};

/** The name of an abnormal type in a language; an unknown type (from a newer device) shows as sent. */
export function abnormalTypeLabel(type: string, lang: 'en' | 'zh'): string {
  return isAbnormalType(type) ? abnormalTypeLabels[type][lang] : type;
}

/** True when `value` is one of the abnormal record types. */
export function isAbnormalType(value: unknown): value is AbnormalTypeName {
  return typeof value === 'string' && abnormalTypes.has(value);
}

/** Abnormal event (command 8): what happened, when, and the load at that moment. */
export interface AbnormalEvent {
  readonly type: AbnormalTypeName;
  /** When it happened on the device; the platform uses its receive time when absent or implausible. */
  readonly time?: number;
  readonly cpu: number;
  readonly memUsed: number;
  readonly memTotal: number;
  /** Short free text (process name, temperature); at most 128 characters are kept. */
  readonly detail?: string;
}

// Hostile or buggy devices must not be able to poison aggregates with NaN, negative or absurd numbers.
const MAX_BYTES = 2 ** 50;
const isPercent = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100;
const isBytes = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_BYTES;
const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const processStates: ReadonlySet<unknown> = new Set<unknown>(Object.values(ProcessState));

/** The status fields of `data`, or undefined when any is missing or out of range. */
export function parseStatusUpload(data: unknown): StatusUpload | undefined {
  const d = record(data);
  if (!d || !isPercent(d.cpu) || !isBytes(d.memUsed) || !isBytes(d.memTotal) || d.memTotal <= 0 || d.memUsed > d.memTotal) return undefined;
  if (d.battery !== undefined && !isPercent(d.battery)) return undefined;
  return { cpu: d.cpu, memUsed: d.memUsed, memTotal: d.memTotal, ...(d.battery === undefined ? {} : { battery: d.battery }) };
}

/** One process of a runtime info report, or undefined when any field is missing or out of range. */
function parseRuntimeProcess(value: unknown): RuntimeProcess | undefined {
  const p = record(value);
  if (!p) return undefined;
  const { pid, name, state, cpu, memUsed } = p;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid < 1) return undefined;
  if (typeof name !== 'string' || name.length < 1 || name.length > MAX_PROCESS_NAME) return undefined;
  if (!processStates.has(state) || !isPercent(cpu) || !isBytes(memUsed)) return undefined;
  return { pid, name, state: state as ProcessStateCode, cpu, memUsed };
}

/**
 * Runtime info (command 4): the status fields and `processes`, a list of at most
 * {@link MAX_RUNTIME_PROCESSES} valid processes; undefined when anything is missing or out of range
 * (one bad process refuses the whole report, as one bad status field does).
 */
export function parseRuntimeInfo(data: unknown): RuntimeInfo | undefined {
  const status = parseStatusUpload(data);
  const list = record(data)?.processes;
  if (!status || !Array.isArray(list) || list.length > MAX_RUNTIME_PROCESSES) return undefined;
  const processes: RuntimeProcess[] = [];
  for (const item of list) {
    const p = parseRuntimeProcess(item);
    if (!p) return undefined;
    processes.push(p);
  }
  return { ...status, processes };
}

/** A location upload, or undefined when coordinates or codes are invalid. */
export function parseLocationUpload(data: unknown): LocationUpload | undefined {
  const d = record(data);
  if (!d) return undefined;
  const { lat, lng, country, region } = d;
  if (typeof lat !== 'number' || !Number.isFinite(lat) || lat < -90 || lat > 90) return undefined;
  if (typeof lng !== 'number' || !Number.isFinite(lng) || lng < -180 || lng > 180) return undefined;
  if (typeof country !== 'string' || !/^[A-Z]{2}$/.test(country)) return undefined;
  if (typeof region !== 'string' || region.length > 64) return undefined;
  return { lat, lng, country, region: region.trim() };
}

/** An abnormal event, or undefined when its type or load values are invalid. */
export function parseAbnormalEvent(data: unknown): AbnormalEvent | undefined {
  const d = record(data);
  const load = parseStatusUpload(data);
  if (!d || !load || !isAbnormalType(d.type)) return undefined;
  if (d.time !== undefined && (typeof d.time !== 'number' || !Number.isInteger(d.time) || d.time < 0)) return undefined;
  if (d.detail !== undefined && typeof d.detail !== 'string') return undefined;
  return {
    type: d.type,
    cpu: load.cpu,
    memUsed: load.memUsed,
    memTotal: load.memTotal,
    ...(d.time === undefined ? {} : { time: d.time }),
    ...(d.detail === undefined ? {} : { detail: d.detail.slice(0, 128) }),
  };
}

/** Memory in use as a percent of the total (0 when the total is unknown). */
export function memoryPercent(memUsed: number, memTotal: number): number {
  return memTotal > 0 ? (memUsed / memTotal) * 100 : 0;
}
