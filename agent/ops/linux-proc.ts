import fs from 'node:fs';
import os from 'node:os';
import {
  type MacAddress,
  type ProcessInfo,
  type ProcessStateCode,
  type RuntimeInfoReply,
  SUPPORT_FLAGS,
  type SupportFlag,
  type SystemInfoReply,
} from '../../protocol/index.ts';
import { linuxDeviceInfo } from '../linux-info.ts';
import { type CpuTimes, parseCpuTimes, parseMemInfo } from '../telemetry/linux-status.ts';

const PAGE = 4096;
const TICKS = 100; // USER_HZ; 100 on every Linux ABI Node runs on

/**
 * Linux's process state letter in the spec's alphabet. The spec's letters are Linux's own (S, R, D, I,
 * T, Z, X); tracing stop (t) reads as T, and the rarer kernel states (W, P, K) as sleeping.
 */
export function specProcessState(letter: string): ProcessStateCode {
  if (letter === 'R' || letter === 'S' || letter === 'D' || letter === 'I' || letter === 'T' || letter === 'Z' || letter === 'X') return letter;
  if (letter === 't') return 'T';
  return 'S';
}

/** One line of /proc/<pid>/stat, parsed; the command name may hold spaces and parentheses. */
export function parseProcStat(line: string): { pid: number; name: string; state: string; ticks: number; rssPages: number } | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const rest = line.slice(close + 2).split(' ');
  // Fields after the name, counted from 3 (state): utime is 14, stime 15, rss 24.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  const rss = Number(rest[21]);
  return { pid: Number(line.slice(0, open).trim()), name: line.slice(open + 1, close), state: rest[0] ?? 'S', ticks: utime + stime, rssPages: rss };
}

function readCpuTotals(): CpuTimes {
  return parseCpuTimes(fs.readFileSync('/proc/stat', 'utf8')) ?? { busy: 0, total: 0 };
}

function memory(): { total: number; free: number } {
  const mem = parseMemInfo(fs.readFileSync('/proc/meminfo', 'utf8'));
  return mem ? { total: mem.total, free: mem.available } : { total: os.totalmem(), free: os.freemem() };
}

interface ProcSample {
  readonly at: number;
  readonly cpu: CpuTimes;
  readonly procs: Map<number, { name: string; state: string; ticks: number; rssPages: number }>;
}

function sample(): ProcSample {
  const procs = new Map<number, { name: string; state: string; ticks: number; rssPages: number }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const p = parseProcStat(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (p) procs.set(p.pid, p);
    } catch {
      // the process ended between readdir and read
    }
  }
  return { at: Date.now(), cpu: readCpuTotals(), procs };
}

/**
 * Samples /proc for runtime info. CPU shares need two samples: the first call takes one, waits briefly
 * and takes another; later calls measure since the previous call.
 */
export class ProcRuntimeSampler {
  #previous: ProcSample | undefined;

  async runtime(limit = 200): Promise<RuntimeInfoReply> {
    if (!this.#previous) {
      this.#previous = sample();
      await new Promise((r) => setTimeout(r, 250));
    }
    const before = this.#previous;
    const now = sample();
    this.#previous = now;
    const elapsedTicks = Math.max(1, ((now.at - before.at) / 1000) * TICKS);
    const totalDelta = Math.max(1, now.cpu.total - before.cpu.total);
    const processes: ProcessInfo[] = [...now.procs.entries()].map(([pid, p]) => {
      const prev = before.procs.get(pid);
      const cpu = prev ? Math.max(0, ((p.ticks - prev.ticks) / elapsedTicks) * 100) : 0;
      return { pid, name: p.name, state: specProcessState(p.state), cpu: Math.round(cpu * 10) / 10, rss: p.rssPages * PAGE };
    });
    processes.sort((a, b) => b.cpu - a.cpu || b.rss - a.rss);
    const load = os.loadavg();
    return {
      time: now.at,
      cpu: Math.round(((now.cpu.busy - before.cpu.busy) / totalDelta) * 1000) / 10,
      memory: memory(),
      load: [load[0] ?? 0, load[1] ?? 0, load[2] ?? 0],
      processCount: processes.length,
      processes: processes.slice(0, Math.max(1, Math.min(limit, 1000))),
    };
  }
}

function readFirst(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8').replace(/\0/g, '').trim();
  } catch {
    return '';
  }
}

/** Interfaces' hardware addresses, loopback and all-zero ones left out. */
export function macAddresses(): MacAddress[] {
  return Object.entries(os.networkInterfaces())
    .flatMap(([name, addrs]) => (addrs ?? []).filter((a) => !a.internal && a.mac !== '00:00:00:00:00:00').map((a) => ({ name, mac: a.mac })))
    .filter((v, i, all) => all.findIndex((o) => o.name === v.name) === i);
}

/** System info of this Linux machine, read from /proc, /sys and the OS. */
export function linuxSystemInfo(): SystemInfoReply {
  const info = linuxDeviceInfo();
  const cpuinfo = readFirst('/proc/cpuinfo');
  const cpuModel = /^(model name|Hardware|Processor)\s*:\s*(.+)$/m.exec(cpuinfo)?.[2] ?? os.cpus()[0]?.model ?? '';
  let storage = { total: 0, free: 0 };
  try {
    const st = fs.statfsSync('/');
    storage = { total: st.blocks * st.bsize, free: st.bavail * st.bsize };
  } catch {
    // no statfs: reported as zero
  }
  const macs = macAddresses();
  const wlan = macs.find((m) => /^(wl|wlan)/.test(m.name))?.mac ?? '';
  let bluetooth = '';
  try {
    for (const dev of fs.readdirSync('/sys/class/bluetooth')) bluetooth ||= readFirst(`/sys/class/bluetooth/${dev}/address`);
  } catch {
    // no Bluetooth adapter
  }
  const has = (p: string) => fs.existsSync(p);
  const support: Record<SupportFlag, boolean> = Object.fromEntries(SUPPORT_FLAGS.map((f) => [f, false])) as Record<SupportFlag, boolean>;
  support.wlan = wlan !== '';
  support.wifi = wlan !== '';
  support.bluetooth = bluetooth !== '';
  support.camera = has('/dev/video0');
  // The microphone the console can use is the live view's voice: there is one when AGENT_AUDIO_CMD is set
  // (a sound card alone gives no voice; a PulseAudio source may have no /dev/snd), so the flag says what works.
  support.mic = (process.env.AGENT_AUDIO_CMD ?? '') !== '';
  support.mobileData = macs.some((m) => /^(ww|rmnet)/.test(m.name));
  support.systemUpgrade = true;
  support.screenCapture = process.env.AGENT_SCREENSHOT_CMD !== undefined;
  return {
    manufacturer: readFirst('/sys/devices/virtual/dmi/id/sys_vendor') || 'Linux',
    model: info.model,
    systemType: 'linux',
    systemVersion: info.systemVersion,
    kernel: os.release(),
    arch: os.arch(),
    cpuModel,
    cpuCores: os.cpus().length,
    memory: memory(),
    storage,
    wlanMac: wlan,
    bluetoothMac: bluetooth,
    macs,
    uptime: Math.round(os.uptime()),
    support,
  };
}
