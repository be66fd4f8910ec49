import {
  type AppInfo,
  type BaseInfoReply,
  type ProcessInfo,
  type ProcessStateCode,
  type RuntimeInfoReply,
  type SystemInfoReply,
} from '../../protocol/index.ts';
import type { DeviceInfo } from '../device-session.ts';
import type { DeviceBackend } from '../ops/device-handlers.ts';
import { MemoryFileStore } from '../ops/file-store.ts';
import { renderSimulatedScreen } from '../ops/png.ts';
import { SimulatedShellProvider } from '../ops/simulated-shell.ts';
import { type ScreenSize, simulatedIdentity, simulatedScreen } from './identity.ts';
import { pick, seededRandom } from './prng.ts';

const GB = 1024 ** 3;
const ANDROID_PROCS = ['system_server', 'surfaceflinger', 'zygote64', 'com.android.systemui', 'com.android.launcher3', 'logd', 'servicemanager', 'netd', 'adbd', 'com.pos.payment', 'com.android.phone', 'kworker/0:1', 'init', 'vold', 'audioserver', 'cameraserver', 'mediaserver', 'rild'];
const LINUX_PROCS = ['systemd', 'sshd', 'dbus-daemon', 'NetworkManager', 'kiosk-browser', 'journald', 'cron', 'kworker/1:2', 'rsyslogd', 'agetty', 'udevd', 'chronyd', 'gatewayd', 'mosquitto'];
const STATES: readonly ProcessStateCode[] = ['S', 'S', 'S', 'S', 'S', 'R', 'I', 'I', 'D', 'T', 'Z'];
const APPS: readonly Omit<AppInfo, 'running' | 'size'>[] = [
  { name: 'Settings', packageName: 'com.android.settings', versionName: '13', versionCode: 33, type: 'system' },
  { name: 'Launcher', packageName: 'com.android.launcher3', versionName: '13', versionCode: 33, type: 'system' },
  { name: 'Payment', packageName: 'com.pos.payment', versionName: '2.4.1', versionCode: 241, type: 'general' },
  { name: 'Kiosk', packageName: 'com.mdm.kiosk', versionName: '1.9.0', versionCode: 190, type: 'general' },
  { name: 'Scanner', packageName: 'com.pos.scanner', versionName: '3.0.2', versionCode: 302, type: 'general' },
];

function hashOf(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/**
 * A simulated terminal's behaviour: plausible, varied per serial and moving over time. Its identity (maker,
 * IMEI, MACs, storage, support flags) is {@link simulatedIdentity}'s, which its login data reports too;
 * `bootedAt` is when it last booted (default: its identity's uptime before now).
 */
export function simulatedBackend(sn: string, info: DeviceInfo, now: () => number, bootedAt?: () => number, screen: ScreenSize = simulatedScreen(info.model)): DeviceBackend & { readonly log: string[] } {
  const random = seededRandom(hashOf(sn));
  const linux = info.systemType === 'linux';
  const identity = simulatedIdentity(sn, info.systemType);
  const memoryTotal = pick(random, [2, 3, 4, 6, 8]) * GB;
  const { storageTotal, storageFree, wlanMac, secondMac, support } = identity;
  const cores = pick(random, [4, 8]);
  const kernel = linux ? info.systemVersion.replace(/^Linux /, '') : `5.10.${100 + Math.floor(random() * 100)}-android12`;
  const macs = [
    { name: 'wlan0', mac: wlanMac },
    { name: linux ? 'eth0' : 'bt', mac: secondMac },
  ];
  const startedAt = now() - identity.upBeforeStartMs;
  const bootAt = bootedAt ?? (() => startedAt);
  const uptime = () => Math.max(0, Math.round((now() - bootAt()) / 1000));
  const names = linux ? LINUX_PROCS : ANDROID_PROCS;
  const procs: ProcessInfo[] = names.map((name, i) => ({
    pid: i === 0 ? 1 : 100 + Math.floor(random() * 30_000),
    name,
    state: pick(random, STATES),
    cpu: 0,
    rss: Math.round((2 + random() * 180) * 1024 * 1024),
    user: i < 4 ? 'root' : 'system',
  }));
  let cpu = 10 + random() * 30;
  let memUsed = memoryTotal * (0.35 + random() * 0.3);
  const whitelist = new Set<string>();
  const apps = APPS.map((a) => ({ ...a, running: random() < 0.5, size: Math.round((5 + random() * 80) * 1024 * 1024) }));
  let ssh = { enabled: false, port: 22 };
  const log: string[] = [];
  const files = new MemoryFileStore(now, {
    'sdcard/Download/readme.txt': `Files of ${sn}\n`,
    'sdcard/DCIM/.keep': '',
    'data/config/device.json': JSON.stringify({ sn, model: info.model }, null, 2),
    'logs/system.log': '',
  });
  const note = (line: string) => {
    log.push(`${new Date(now()).toISOString()} ${line}`);
    if (log.length > 2000) log.splice(0, log.length - 2000);
    return line;
  };
  note(`boot ${info.model} ${info.systemVersion}`);

  const memory = () => ({ total: memoryTotal, free: Math.round(memoryTotal - memUsed) });
  const baseInfo = (): BaseInfoReply => ({
    ...info,
    hostname: sn.toLowerCase(),
    kernel,
    arch: 'arm64',
    memory: memory(),
    storage: { total: storageTotal, free: storageFree },
    macs,
    uptime: uptime(),
  });

  return {
    systemType: info.systemType,
    log,
    baseInfo,
    systemInfo: (): SystemInfoReply => ({
      manufacturer: identity.manufacturer,
      model: info.model,
      systemType: info.systemType,
      systemVersion: info.systemVersion,
      kernel,
      arch: 'arm64',
      cpuModel: linux ? 'ARM Cortex-A55' : 'Qualcomm SM6225',
      cpuCores: cores,
      memory: memory(),
      storage: { total: storageTotal, free: storageFree },
      wlanMac,
      bluetoothMac: linux ? '' : secondMac,
      macs,
      ...(identity.imei === undefined ? {} : { imei: identity.imei }),
      ...(identity.basebandVersion === undefined ? {} : { basebandVersion: identity.basebandVersion }),
      uptime: uptime(),
      support,
    }),
    runtime: (limit): RuntimeInfoReply => {
      // A bounded random walk, so successive samples chart like a real device's load.
      cpu = Math.min(98, Math.max(2, cpu + (random() - 0.5) * 12));
      memUsed = Math.min(memoryTotal * 0.95, Math.max(memoryTotal * 0.2, memUsed + (random() - 0.5) * 0.04 * memoryTotal));
      let share = cpu * cores;
      const processes = procs.map((p) => {
        const c = Math.round(random() * Math.min(share, 40) * 10) / 10;
        share -= c;
        return { ...p, cpu: c, state: p.state === 'R' || c > 5 ? ('R' as const) : p.state };
      });
      processes.sort((a, b) => b.cpu - a.cpu);
      return { time: now(), cpu: Math.round(cpu * 10) / 10, memory: memory(), load: [cpu / 25, cpu / 30, cpu / 35], processCount: processes.length, processes: processes.slice(0, limit) };
    },
    shell: new SimulatedShellProvider(files, sn, kernel, now),
    files,
    // The screen's shape at the asked width (a thumbnail), or at 360 pixels wide at most.
    screenshot: async (maxWidth) => {
      const width = Math.min(maxWidth ?? 360, screen.width, 360);
      return renderSimulatedScreen(sn, now(), width, Math.max(1, Math.round((width * screen.height) / screen.width)));
    },
    logTail: async (maxBytes) => {
      const bytes = new TextEncoder().encode(`${log.join('\n')}\n`);
      return { name: `${sn}-${new Date(now()).toISOString().slice(0, 10)}.log`, mime: 'text/plain', bytes: bytes.subarray(Math.max(0, bytes.length - maxBytes)) };
    },
    pushText: async (title, text) => note(`message shown: ${title ? `${title}: ` : ''}${text}`),
    factoryReset: async () => {
      whitelist.clear();
      for (const e of await files.list('sdcard/Download')) await files.remove(`sdcard/Download/${e.name}`);
      return note('factory reset: user data wiped (simulated)');
    },
    clear: async (kind, pkg) => note(`${kind} cleared${pkg ? ` for ${pkg}` : ''}`),
    whitelist: async (action, packages) => {
      if (action === 'set') for (const p of packages) whitelist.add(p);
      if (action === 'cancel') {
        if (packages.length === 0) whitelist.clear();
        for (const p of packages) whitelist.delete(p);
      }
      note(`whitelist ${action}: ${[...whitelist].join(',')}`);
      return [...whitelist];
    },
    daemon: async (pkg, enabled) => note(`daemon ${enabled ? 'on' : 'off'} for ${pkg}`),
    sshConfig: async (enabled, port) => {
      ssh = { enabled, port: port ?? ssh.port };
      note(`ssh ${enabled ? `enabled on ${ssh.port}` : 'disabled'}`);
      return ssh;
    },
    otaList: async () => ({
      current: info.imageVersion,
      packages: [
        { name: `${info.model.replace(/\s+/g, '_')}-${info.imageVersion}.zip`, version: info.imageVersion, type: 'system', state: 'installed' },
        { name: 'mcu-v1.03.bin', version: 'v1.03', type: 'mcu', state: 'installed' },
      ],
    }),
    appList: async () => ({ apps }),
    uninstall: async (pkg) => {
      const i = apps.findIndex((a) => a.packageName === pkg);
      if (i < 0) throw new Error(`No app ${pkg} on this device`);
      if (apps[i]?.type === 'system') throw new Error(`${pkg} is a system app and cannot be uninstalled`);
      apps.splice(i, 1);
      return note(`uninstalled ${pkg}`);
    },
  };
}
