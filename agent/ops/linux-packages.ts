import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import type { AppInfo, AppListReply, OtaListReply } from '../../protocol/index.ts';

/**
 * What a Linux terminal has installed, for the app list (65605) and the OTA list (65607): the
 * distribution's packages stand in for apps, the OS image and the agent itself for OTA packages.
 */

/** Fields asked of dpkg-query, one package a line; ${Status} ends in "installed" for a package really there. */
export const DPKG_FORMAT = '${Package}\t${Version}\t${Priority}\t${Essential}\t${Installed-Size}\t${Status}\n';
/** Fields asked of rpm -qa; SIZE is in bytes. */
export const RPM_FORMAT = '%{NAME}\t%{VERSION}-%{RELEASE}\t%{SIZE}\n';
/**
 * At most this many packages go in one reply: a reply is one frame of at most 1 MiB (MAX_FRAME_BYTES),
 * and an app entry is about 150 bytes as JSON, so 3,000 leave room to spare. A desktop with more is told so.
 */
export const MAX_APPS = 3_000;

/** The app list reply of a Linux terminal; `note` says why it is empty or cut (the console shows the list only). */
export type LinuxAppList = AppListReply & { readonly note?: string };

const app = (name: string, version: string, type: AppInfo['type'], size: number, running: ReadonlySet<string>): AppInfo => ({
  name,
  packageName: name,
  versionName: version,
  // Debian and RPM versions are not integers, and ordering them takes the package manager's own rules.
  versionCode: 0,
  type,
  running: running.has(name),
  size: Number.isSafeInteger(size) && size > 0 ? size : 0,
});

/**
 * Packages from dpkg-query output in {@link DPKG_FORMAT}. Priority required or important, or Essential,
 * marks a system package (the base system a terminal cannot run without); the rest are general. Removed
 * packages whose configuration files remain are left out, and a package installed for two architectures
 * is listed once.
 */
export function parseDpkgList(text: string, running: ReadonlySet<string> = new Set()): AppInfo[] {
  const seen = new Map<string, AppInfo>();
  for (const line of text.split('\n')) {
    const [name, version, priority, essential, sizeKiB, status] = line.split('\t');
    if (!name || version === undefined || !status?.trim().endsWith(' installed') || seen.has(name)) continue;
    const system = priority === 'required' || priority === 'important' || essential === 'yes';
    seen.set(name, app(name, version, system ? 'system' : 'general', Number(sizeKiB) * 1024, running));
  }
  return [...seen.values()];
}

/** Packages from `rpm -qa` output in {@link RPM_FORMAT}; RPM has no priority, so every package is general. */
export function parseRpmList(text: string, running: ReadonlySet<string> = new Set()): AppInfo[] {
  const seen = new Map<string, AppInfo>();
  for (const line of text.split('\n')) {
    const [name, version, size] = line.split('\t');
    if (!name || version === undefined || seen.has(name)) continue;
    seen.set(name, app(name, version, 'general', Number(size), running));
  }
  return [...seen.values()];
}

/** Runs a program and resolves to its standard output; rejects with code ENOENT when it is not installed. */
export type RunProgram = (file: string, args: readonly string[]) => Promise<string>;

const execFileAsync = promisify(execFile);
/** Runs a program of this machine (no shell), with a size cap matched to a few thousand packages. */
export const runProgram: RunProgram = async (file, args) =>
  (await execFileAsync(file, [...args], { maxBuffer: 16 * 1024 * 1024, timeout: 60_000, encoding: 'utf8' })).stdout;

const missing = (err: unknown) => (err as { code?: unknown } | null)?.code === 'ENOENT';

/**
 * The terminal's installed packages as an app list: dpkg where it exists, else RPM, else an empty list
 * with a note. Sorted by name; `running` marks packages whose name a running process has.
 */
export async function installedPackages(run: RunProgram = runProgram, running: ReadonlySet<string> = new Set()): Promise<LinuxAppList> {
  let apps: AppInfo[];
  let source: string;
  try {
    apps = parseDpkgList(await run('dpkg-query', ['-W', `-f=${DPKG_FORMAT}`]), running);
    source = 'dpkg';
  } catch (err) {
    if (!missing(err)) throw err;
    try {
      apps = parseRpmList(await run('rpm', ['-qa', '--qf', RPM_FORMAT]), running);
      source = 'rpm';
    } catch (err2) {
      if (!missing(err2)) throw err2;
      return { apps: [], note: 'No package manager found (neither dpkg nor rpm): this terminal cannot list its software' };
    }
  }
  apps.sort((a, b) => (a.packageName < b.packageName ? -1 : a.packageName > b.packageName ? 1 : 0));
  if (apps.length > MAX_APPS) return { apps: apps.slice(0, MAX_APPS), note: `${apps.length} ${source} packages installed; the first ${MAX_APPS} by name are listed` };
  return { apps };
}

/** Names of the running processes (/proc/<pid>/comm, which the kernel cuts to 15 characters). */
export async function runningProcessNames(): Promise<Set<string>> {
  const names = new Set<string>();
  const entries = await fs.promises.readdir('/proc').catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (pid) => {
        const comm = await fs.promises.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
        if (comm.trim()) names.add(comm.trim());
      }),
  );
  return names;
}

/** Key/value pairs of /etc/os-release (shell-style, values optionally quoted). */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m?.[1]) continue;
    const raw = (m[2] ?? '').trim();
    out[m[1]] = /^(["']).*\1$/.test(raw) ? raw.slice(1, -1).replace(/\\(["$`\\])/g, '$1') : raw;
  }
  return out;
}

/** What the OTA list of a Linux terminal is made from. */
export interface LinuxOtaFacts {
  /** Text of /etc/os-release ('' when absent). */
  readonly osRelease: string;
  /** Point release of Debian-family systems (/etc/debian_version), more precise than VERSION_ID. */
  readonly debianVersion?: string | undefined;
  /** AGENT_IMAGE_VERSION: the image version the terminal's maker gave it, reported at login too. */
  readonly imageVersion?: string | undefined;
  readonly kernel: string;
  readonly agentVersion: string;
}

/**
 * The OTA list of a Linux terminal: the installed OS image as the system package (with the image
 * version its maker set, else the distribution's version), the kernel, and the agent itself. `current`
 * is the image version the platform shows for the device.
 */
export function linuxOtaList(f: LinuxOtaFacts): OtaListReply {
  const rel = parseOsRelease(f.osRelease);
  const osName = rel.PRETTY_NAME || rel.NAME || 'Linux';
  // Ubuntu's debian_version names its Debian base ("bookworm/sid"), not its own version: only digits count.
  const debian = /^\d/.test(f.debianVersion?.trim() ?? '') ? f.debianVersion?.trim() : undefined;
  const osVersion = f.imageVersion || debian || rel.VERSION_ID || rel.VERSION || f.kernel;
  return {
    current: osVersion,
    packages: [
      { name: osName, version: osVersion, type: 'system', state: 'installed' },
      { name: 'linux-kernel', version: f.kernel, type: 'kernel', state: 'installed' },
      { name: 'device-agent', version: f.agentVersion, type: 'agent', state: 'installed' },
    ],
  };
}

function readOptional(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The agent's own version: the version of the package it runs from. */
export function agentVersion(): string {
  const pkg = readOptional(new URL('../../package.json', import.meta.url).pathname);
  try {
    const v = (JSON.parse(pkg ?? '{}') as { version?: unknown }).version;
    return typeof v === 'string' ? v : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The facts of this machine for {@link linuxOtaList}. */
export function linuxOtaFacts(imageVersion: string | undefined): LinuxOtaFacts {
  return {
    osRelease: readOptional('/etc/os-release') ?? readOptional('/usr/lib/os-release') ?? '',
    debianVersion: readOptional('/etc/debian_version'),
    imageVersion,
    kernel: os.release(),
    agentVersion: agentVersion(),
  };
}
