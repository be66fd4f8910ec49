import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseStatusUpload } from '../../protocol/index.ts';
import {
  agentTelemetrySettings,
  batteryPercent,
  cpuPercent,
  type LinuxStatusSources,
  LinuxStatusReader,
  parseCpuTimes,
  parseLocationSetting,
  parseMemInfo,
} from './linux-status.ts';

// Captured from a 2-core Debian machine; the guest columns (last two) are non-zero on purpose: they are
// already counted in user and nice and must not be added again.
const STAT_BEFORE = `cpu  53389 461 34089 89416 1439 0 1885 133 50 0
cpu0 25390 281 16583 47128 152 0 846 57 0 0
cpu1 27999 180 17506 42288 1287 0 1039 76 0 0
intr 9518736 0 9 0 0 0 0 0 0 0
ctxt 20071123
btime 1764057600
`;
const STAT_AFTER = `cpu  53489 461 34139 89766 1439 0 1885 133 60 0
cpu0 25440 281 16608 47303 152 0 846 57 0 0
`;

const MEMINFO = `MemTotal:       24684084 kB
MemFree:        22412760 kB
MemAvailable:   23944536 kB
Buffers:           41300 kB
Cached:          1697856 kB
SwapCached:            0 kB
`;

describe('status reading from /proc text', () => {
  it('sums the eight time columns of the cpu line and counts iowait as idle', () => {
    expect(parseCpuTimes(STAT_BEFORE)).toEqual({ total: 53389 + 461 + 34089 + 89416 + 1439 + 0 + 1885 + 133, busy: 53389 + 461 + 34089 + 1885 + 133 });
    expect(parseCpuTimes('intr 1 2 3\n')).toBeUndefined();
    expect(parseCpuTimes('cpu  1 2 x 4\n')).toBeUndefined();
  });

  it('measures CPU use between two readings, and since boot without an earlier one', () => {
    const before = parseCpuTimes(STAT_BEFORE);
    const after = parseCpuTimes(STAT_AFTER);
    if (!before || !after) throw new Error('fixture did not parse');
    // 150 busy ticks (100 user + 50 system) of 500 ticks in all.
    expect(cpuPercent(before, after)).toBe(30);
    expect(cpuPercent(undefined, before)).toBe(Math.round(((53389 + 461 + 34089 + 1885 + 133) / (53389 + 461 + 34089 + 89416 + 1439 + 1885 + 133)) * 1000) / 10);
    // No tick between the readings: the average since boot, never a division by zero.
    expect(cpuPercent(after, after)).toBe(cpuPercent(undefined, after));
  });

  it('reads memory in use as MemTotal less MemAvailable, with the old-kernel fallback', () => {
    expect(parseMemInfo(MEMINFO)).toEqual({ total: 24684084 * 1024, available: 23944536 * 1024 });
    const old = MEMINFO.replace(/^MemAvailable:.*\n/m, '');
    expect(parseMemInfo(old)).toEqual({ total: 24684084 * 1024, available: (22412760 + 41300 + 1697856) * 1024 });
    expect(parseMemInfo('')).toBeUndefined();
  });

  it("takes the terminal's own battery, not a wireless mouse's, and none on mains power", () => {
    expect(batteryPercent([{ type: 'Mains\n' }, { type: 'Battery\n', scope: 'Device\n', capacity: '15\n' }, { type: 'Battery\n', capacity: '87\n' }])).toBe(87);
    expect(batteryPercent([{ type: 'Mains\n' }])).toBeUndefined();
    expect(batteryPercent([{ type: 'Battery', capacity: 'unknown' }])).toBeUndefined();
    expect(batteryPercent([])).toBeUndefined();
  });

  it('parses AGENT_LOCATION and explains the expected form when it is wrong', () => {
    expect(parseLocationSetting('31.23, 121.47, cn, Shanghai')).toEqual({ lat: 31.23, lng: 121.47, country: 'CN', region: 'Shanghai' });
    expect(parseLocationSetting('48.14,11.58,DE')).toEqual({ lat: 48.14, lng: 11.58, country: 'DE', region: '' });
    expect(() => parseLocationSetting('31.23,121.47')).toThrow(/lat,lng,CC/);
    expect(() => parseLocationSetting('91,0,CN')).toThrow(/AGENT_LOCATION/);
    expect(() => parseLocationSetting(',,CN')).toThrow(/AGENT_LOCATION/);
  });
});

describe('agent telemetry settings', () => {
  it('reports every 60 s without a location by default, and refuses malformed values', () => {
    expect(agentTelemetrySettings({})).toEqual({ everyMs: 60_000, location: undefined });
    expect(agentTelemetrySettings({ AGENT_STATUS_EVERY_S: '2.5', AGENT_LOCATION: '23.13,113.26,CN,Guangdong' })).toEqual({
      everyMs: 2_500,
      location: { lat: 23.13, lng: 113.26, country: 'CN', region: 'Guangdong' },
    });
    expect(() => agentTelemetrySettings({ AGENT_STATUS_EVERY_S: '0' })).toThrow(/at least 1/);
    expect(() => agentTelemetrySettings({ AGENT_STATUS_EVERY_S: 'often' })).toThrow(/AGENT_STATUS_EVERY_S/);
    expect(() => agentTelemetrySettings({ AGENT_LOCATION: 'here' })).toThrow(/AGENT_LOCATION/);
  });
});

describe('the Linux status reader', () => {
  it('builds a status upload the platform accepts from fixture files', async () => {
    const files: Record<string, string> = {
      '/proc/stat': STAT_BEFORE,
      '/proc/meminfo': MEMINFO,
      '/sys/class/power_supply/AC/type': 'Mains\n',
      '/sys/class/power_supply/BAT0/type': 'Battery\n',
      '/sys/class/power_supply/BAT0/capacity': '64\n',
    };
    const src: LinuxStatusSources = {
      readText: async (f) => {
        const text = files[f];
        if (text === undefined) throw new Error(`ENOENT ${f}`);
        return text;
      },
      listDir: async () => ['AC', 'BAT0'],
      statfs: async () => ({ blocks: 1000, bsize: 4096, bavail: 250 }),
      interfaces: () => ['wlan0'],
    };
    const reader = new LinuxStatusReader(src);
    files['/proc/stat'] = STAT_AFTER;
    const status = await reader.read();
    expect(status).toEqual({
      cpu: 30,
      memUsed: (24684084 - 23944536) * 1024,
      memTotal: 24684084 * 1024,
      battery: 64,
      storage: { total: 4096_000, free: 1024_000 },
      networkType: 2,
    });
    expect(parseStatusUpload(status)).toEqual({ cpu: 30, memUsed: status.memUsed, memTotal: status.memTotal, battery: 64 });
  });

  it('reads this machine: real /proc and statfs give a valid upload', async () => {
    const reader = new LinuxStatusReader();
    const status = await reader.read();
    const accepted = parseStatusUpload(status);
    expect(accepted).toBeDefined();
    expect(status.memTotal).toBe(os.totalmem());
    expect(status.cpu).toBeGreaterThanOrEqual(0);
    expect(status.cpu).toBeLessThanOrEqual(100);
    expect(status.storage?.total).toBeGreaterThan(0);
    expect([0, 1, 2, 3]).toContain(status.networkType);
  });
});
