import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Capacity, type LocationUpload, parseLocationUpload, type StatusUpload } from '../../protocol/index.ts';
import { networkTypeOf } from '../linux-info.ts';

/**
 * What the Linux agent reads for its status uploads (command 3), as pure functions over the text of
 * /proc and /sys, plus one reader that takes its files through an injected port so tests can feed it
 * fixtures as well as the real machine.
 */

/** Cumulative CPU time of the whole machine, in clock ticks, from the `cpu` line of /proc/stat. */
export interface CpuTimes {
  readonly busy: number;
  readonly total: number;
}

/**
 * The aggregate `cpu` line of /proc/stat. Only the first eight columns (user nice system idle iowait irq
 * softirq steal) are summed: guest and guest_nice are already counted in user and nice. Idle time is
 * idle plus iowait (a CPU waiting for the disk runs nothing).
 */
export function parseCpuTimes(procStat: string): CpuTimes | undefined {
  const line = procStat.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return undefined;
  const n = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (n.length < 4 || n.some((v) => !Number.isFinite(v) || v < 0)) return undefined;
  const total = n.reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * Whole-machine CPU use in percent (0-100, one decimal) between two readings of /proc/stat. Without an
 * earlier reading, or when no tick passed between the two, it is the average since boot.
 */
export function cpuPercent(before: CpuTimes | undefined, now: CpuTimes): number {
  let busy = now.busy;
  let total = now.total;
  if (before && now.total > before.total) {
    busy = now.busy - before.busy;
    total = now.total - before.total;
  }
  if (total <= 0) return 0;
  return Math.round(Math.min(100, Math.max(0, (busy / total) * 100)) * 10) / 10;
}

/**
 * Memory from /proc/meminfo, in bytes. In use is MemTotal less MemAvailable (the kernel's estimate of
 * what can be had without swapping); kernels before 3.14 lack MemAvailable, and there free + buffers +
 * page cache stands in for it.
 */
export function parseMemInfo(meminfo: string): { total: number; available: number } | undefined {
  const kb = (key: string): number | undefined => {
    const m = new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(meminfo);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const total = kb('MemTotal');
  if (!total) return undefined;
  const available = kb('MemAvailable') ?? (kb('MemFree') ?? 0) + (kb('Buffers') ?? 0) + (kb('Cached') ?? 0);
  return { total, available: Math.min(total, available) };
}

/** One entry of /sys/class/power_supply: the text of its `type`, `scope` and `capacity` files. */
export interface PowerSupply {
  readonly type: string;
  readonly scope?: string;
  readonly capacity?: string;
}

/**
 * The machine's battery level (0-100), or undefined on mains power. Batteries of attached devices
 * (a wireless mouse reports scope "Device") are not the terminal's.
 */
export function batteryPercent(supplies: readonly PowerSupply[]): number | undefined {
  for (const s of supplies) {
    if (s.type.trim() !== 'Battery' || s.scope?.trim() === 'Device') continue;
    const level = Number(s.capacity?.trim());
    if (s.capacity !== undefined && Number.isFinite(level) && level >= 0 && level <= 100) return level;
  }
  return undefined;
}

/**
 * AGENT_LOCATION, "lat,lng,CC[,region]": a fixed place for a terminal without GPS. The country code is
 * required because the location upload carries one (the platform's maps and country tables read it).
 * Throws with the expected form when the value is malformed.
 */
export function parseLocationSetting(value: string): LocationUpload {
  const [lat, lng, country, ...region] = value.split(',').map((p) => p.trim());
  const parsed = parseLocationUpload({ lat: Number(lat), lng: Number(lng), country: (country ?? '').toUpperCase(), region: region.join(', ') });
  if (!parsed || lat === '' || lng === '') {
    throw new Error(`AGENT_LOCATION must be "lat,lng,CC[,region]" (WGS-84 degrees, ISO country code), e.g. "31.23,121.47,CN,Shanghai"; got "${value}"`);
  }
  return parsed;
}

/** How the agent reports: status period and optional fixed location. */
export interface AgentTelemetrySettings {
  readonly everyMs: number;
  readonly location: LocationUpload | undefined;
}

/** The simulator's period (agent/simulator/telemetry.ts), which the gateway's ingestion is sized for. */
export const DEFAULT_STATUS_EVERY_S = 60;

/**
 * AGENT_STATUS_EVERY_S (seconds, at least 1, default 60) and AGENT_LOCATION. Throws with the reason on
 * a malformed value, so the agent refuses to start rather than report wrongly.
 */
export function agentTelemetrySettings(env: Readonly<Record<string, string | undefined>>): AgentTelemetrySettings {
  const raw = env.AGENT_STATUS_EVERY_S;
  const seconds = raw === undefined || raw === '' ? DEFAULT_STATUS_EVERY_S : Number(raw);
  if (!Number.isFinite(seconds) || seconds < 1) throw new Error(`AGENT_STATUS_EVERY_S must be a number of seconds, at least 1; got "${raw ?? ''}"`);
  const location = env.AGENT_LOCATION ? parseLocationSetting(env.AGENT_LOCATION) : undefined;
  return { everyMs: Math.round(seconds * 1000), location };
}

/** A status upload of the real agent: the wire's fields plus storage and network type, which the platform may ignore. */
export interface AgentStatus extends StatusUpload {
  /** Bytes of the root file system, free meaning available to unprivileged users. */
  readonly storage?: Capacity;
  /** Network type of the spec (0 unknown, 1 mobile, 2 wifi, 3 ethernet). */
  readonly networkType: number;
}

/** The files and calls a status reading needs; {@link linuxStatusSources} is the real machine. */
export interface LinuxStatusSources {
  readText(file: string): Promise<string>;
  listDir(dir: string): Promise<string[]>;
  statfs(dir: string): Promise<{ blocks: number; bsize: number; bavail: number }>;
  /** Names of the interfaces that have a non-internal address. */
  interfaces(): string[];
}

/** This machine's /proc, /sys, file system and interfaces. */
export const linuxStatusSources: LinuxStatusSources = {
  readText: (file) => fs.promises.readFile(file, 'utf8'),
  listDir: (dir) => fs.promises.readdir(dir),
  statfs: (dir) => fs.promises.statfs(dir),
  interfaces: () =>
    Object.entries(os.networkInterfaces())
      .filter(([, addrs]) => addrs?.some((a) => !a.internal))
      .map(([name]) => name),
};

const POWER_SUPPLY = '/sys/class/power_supply';

/**
 * Reads the agent's status. CPU use is measured between two calls (the first call measures since the
 * reader was made, or since boot when no tick has passed), so one reader serves one reporting loop.
 */
export class LinuxStatusReader {
  readonly #src: LinuxStatusSources;
  readonly #storagePath: string;
  #lastCpu: CpuTimes | undefined;

  constructor(src: LinuxStatusSources = linuxStatusSources, storagePath = '/') {
    this.#src = src;
    this.#storagePath = storagePath;
    // The first baseline, so the first upload after login covers the time since the agent started.
    void this.#cpu().catch(() => undefined);
  }

  async read(): Promise<AgentStatus> {
    const [cpu, mem, storage, battery] = await Promise.all([this.#cpu(), this.#memory(), this.#storage(), this.#battery()]);
    return {
      cpu,
      memUsed: mem.total - mem.available,
      memTotal: mem.total,
      ...(battery === undefined ? {} : { battery }),
      ...(storage ? { storage } : {}),
      networkType: networkTypeOf(this.#src.interfaces()),
    };
  }

  async #cpu(): Promise<number> {
    const now = parseCpuTimes(await this.#src.readText('/proc/stat'));
    if (!now) throw new Error('/proc/stat has no cpu line');
    const before = this.#lastCpu;
    this.#lastCpu = now;
    return cpuPercent(before, now);
  }

  async #memory(): Promise<{ total: number; available: number }> {
    const mem = parseMemInfo(await this.#src.readText('/proc/meminfo'));
    if (!mem) throw new Error('/proc/meminfo has no MemTotal');
    return mem;
  }

  async #storage(): Promise<Capacity | undefined> {
    try {
      const st = await this.#src.statfs(this.#storagePath);
      return { total: st.blocks * st.bsize, free: st.bavail * st.bsize };
    } catch {
      return undefined;
    }
  }

  async #battery(): Promise<number | undefined> {
    const names = await this.#src.listDir(POWER_SUPPLY).catch(() => [] as string[]);
    const optional = (file: string) => this.#src.readText(file).catch(() => undefined);
    const supplies = await Promise.all(
      names.map(async (name): Promise<PowerSupply> => {
        const dir = path.posix.join(POWER_SUPPLY, name);
        const [type, scope, capacity] = await Promise.all([optional(`${dir}/type`), optional(`${dir}/scope`), optional(`${dir}/capacity`)]);
        return { type: type ?? '', ...(scope === undefined ? {} : { scope }), ...(capacity === undefined ? {} : { capacity }) };
      }),
    );
    return batteryPercent(supplies);
  }
}
