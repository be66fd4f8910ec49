import fs from 'node:fs';
import os from 'node:os';
import type { BaseInfoReply } from '../protocol/index.ts';
import type { DeviceInfo } from './device-session.ts';

function readFirst(paths: readonly string[]): string | undefined {
  for (const p of paths) {
    try {
      const v = fs.readFileSync(p, 'utf8').trim();
      if (v) return v;
    } catch {
      // not on this machine
    }
  }
  return undefined;
}

/** Network type of the spec (0 unknown, 1 mobile, 2 wifi, 3 ethernet) from the first non-internal interface's name. */
export function networkTypeOf(names: readonly string[]): number {
  const name = names.find((n) => n !== 'lo');
  if (!name) return 0;
  if (/^(wl|wlan)/.test(name)) return 2;
  if (/^(ww|rmnet|usb|ppp)/.test(name)) return 1;
  if (/^(en|eth)/.test(name)) return 3;
  return 0;
}

/** What this Linux machine really is, as the agent reports it at login. */
export function linuxDeviceInfo(): DeviceInfo {
  const model = readFirst(['/sys/devices/virtual/dmi/id/product_name', '/proc/device-tree/model']) ?? os.hostname();
  const osRelease = readFirst(['/etc/os-release']) ?? '';
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(osRelease)?.[1] ?? os.type();
  const interfaces = Object.entries(os.networkInterfaces())
    .filter(([, addrs]) => addrs?.some((a) => !a.internal))
    .map(([name]) => name);
  return {
    model: model.replace(/\0/g, '').slice(0, 128),
    systemType: 'linux',
    systemVersion: `${pretty} (kernel ${os.release()})`.slice(0, 128),
    imageVersion: process.env.AGENT_IMAGE_VERSION ?? '',
    networkType: networkTypeOf(interfaces),
  };
}

/** Base information the agent answers command 65612 with: identity plus memory, storage and MACs. */
export function linuxBaseInfo(): BaseInfoReply {
  const info = linuxDeviceInfo();
  let storage: { total: number; free: number } | undefined;
  try {
    const st = fs.statfsSync('/');
    storage = { total: st.blocks * st.bsize, free: st.bavail * st.bsize };
  } catch {
    storage = undefined;
  }
  const macs = Object.entries(os.networkInterfaces())
    .flatMap(([name, addrs]) => (addrs ?? []).filter((a) => !a.internal && a.mac !== '00:00:00:00:00:00').map((a) => ({ name, mac: a.mac })))
    .filter((v, i, all) => all.findIndex((o) => o.name === v.name) === i);
  return {
    ...info,
    hostname: os.hostname(),
    kernel: os.release(),
    arch: os.arch(),
    memory: { total: os.totalmem(), free: os.freemem() },
    storage,
    macs,
    uptime: Math.round(os.uptime()),
  };
}
