import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Command, decodeRequest, Result } from '../../protocol/index.ts';
import type { CommandHandler } from '../device-session.ts';
import { linuxBaseInfo } from '../linux-info.ts';
import type { DeviceBackend } from './device-handlers.ts';
import { DiskFileStore } from './file-store.ts';
import { installedPackages, linuxOtaFacts, linuxOtaList, runningProcessNames } from './linux-packages.ts';
import { linuxSystemInfo, ProcRuntimeSampler } from './linux-proc.ts';
import { DEFAULT_SHELL_IDLE_MS, LinuxShellProvider } from './shell.ts';

const run = promisify(execFile);

/** The agent's settings for device operations, from its environment and command line. */
export interface LinuxBackendConfig {
  readonly fileRoot: string;
  readonly shellAllowed: boolean;
  readonly shellCwd: string;
  readonly shellTimeoutMs: number;
  /** The log whose tail grab-log sends. */
  readonly logFile: string;
  /** Prints a PNG of the screen on stdout; unset: screenshots are unsupported. */
  readonly screenshotCmd: string | undefined;
  /** Hooks for destructive actions; unset: logged and simulated. */
  readonly resetCmd: string | undefined;
  readonly sshCmd: string | undefined;
  /** Removes the package named in APP_PACKAGE; unset: uninstall is refused as DOPS-7 says. */
  readonly uninstallCmd: string | undefined;
  /** AGENT_IMAGE_VERSION: the OS image version the terminal's maker gave it. */
  readonly imageVersion: string | undefined;
  readonly log: (line: string) => void;
}

/** Reads the agent's configuration (see README, "Running the agent on a Linux terminal"). */
export function linuxBackendConfig(env: NodeJS.ProcessEnv, argv: readonly string[], stateDir: string, log: (line: string) => void): LinuxBackendConfig {
  const fileRoot = path.resolve(env.AGENT_FILE_ROOT ?? path.join(stateDir, 'files'));
  const timeout = Number(env.AGENT_SHELL_TIMEOUT_MS ?? DEFAULT_SHELL_IDLE_MS);
  return {
    fileRoot,
    shellAllowed: argv.includes('--allow-shell') || env.AGENT_ALLOW_SHELL === '1',
    shellCwd: path.resolve(env.AGENT_SHELL_CWD ?? fileRoot),
    shellTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_SHELL_IDLE_MS,
    logFile: path.resolve(env.AGENT_LOG_FILE ?? path.join(stateDir, 'agent.log')),
    screenshotCmd: env.AGENT_SCREENSHOT_CMD || undefined,
    resetCmd: env.AGENT_RESET_CMD || undefined,
    sshCmd: env.AGENT_SSH_CMD || undefined,
    uninstallCmd: env.AGENT_UNINSTALL_CMD || undefined,
    imageVersion: env.AGENT_IMAGE_VERSION || undefined,
    log,
  };
}

// Debian and RPM package names (letters, digits, + . _ - and an architecture after ':'). The name reaches
// the hook through its environment, never its command line, but a name outside this set is no package.
const PACKAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9+._:@~-]{0,127}$/;

/** Device operations on the real Linux machine the agent runs on. */
export function linuxBackend(cfg: LinuxBackendConfig): DeviceBackend {
  const sampler = new ProcRuntimeSampler();
  let ssh = { enabled: false, port: 22 };
  // A hook runs with the action's details in its environment; without one the action is only logged.
  const hook = async (cmd: string | undefined, what: string, env: Record<string, string> = {}): Promise<string> => {
    if (!cmd) {
      cfg.log(`${what} requested: simulating (no hook configured)`);
      return `${what} simulated`;
    }
    cfg.log(`${what} requested: running "${cmd}"`);
    const { stdout } = await run('/bin/sh', ['-c', cmd], { env: { ...process.env, ...env }, timeout: 120_000 });
    return stdout.trim().slice(0, 500) || `${what} done`;
  };
  return {
    systemType: 'linux',
    baseInfo: () => linuxBaseInfo(),
    systemInfo: () => linuxSystemInfo(),
    runtime: (limit) => sampler.runtime(limit),
    shell: new LinuxShellProvider({ allowed: cfg.shellAllowed, cwd: cfg.shellCwd, timeoutMs: cfg.shellTimeoutMs }),
    files: new DiskFileStore(cfg.fileRoot),
    screenshot: async (maxWidth) => {
      if (!cfg.screenshotCmd) return undefined;
      // A thumbnail's width is the command's to honour (SCREENSHOT_MAX_WIDTH), as the sub stream's size is.
      const env = maxWidth === undefined ? process.env : { ...process.env, SCREENSHOT_MAX_WIDTH: String(maxWidth) };
      const { stdout } = await run('/bin/sh', ['-c', cfg.screenshotCmd], { encoding: 'buffer', maxBuffer: 32 * 1024 * 1024, timeout: 30_000, env });
      return new Uint8Array(stdout);
    },
    logTail: async (maxBytes) => {
      const fd = await fs.promises.open(cfg.logFile, 'r').catch(() => undefined);
      if (!fd) return { name: path.basename(cfg.logFile), mime: 'text/plain', bytes: new Uint8Array(0) };
      try {
        const { size } = await fd.stat();
        const length = Math.min(size, maxBytes);
        const bytes = new Uint8Array(length);
        await fd.read(bytes, 0, length, size - length);
        return { name: path.basename(cfg.logFile), mime: 'text/plain', bytes };
      } finally {
        await fd.close();
      }
    },
    pushText: async (title, text) => {
      cfg.log(`message: ${title ? `${title}: ` : ''}${text}`);
      return 'Message shown';
    },
    factoryReset: () => hook(cfg.resetCmd, 'factory reset'),
    // Linux devices refuse these before the backend is asked (device-handlers, DOPS-7); kept for completeness.
    clear: async () => 'unsupported',
    whitelist: async () => [],
    daemon: async () => 'unsupported',
    sshConfig: async (enabled, port) => {
      await hook(cfg.sshCmd, `ssh ${enabled ? 'enable' : 'disable'}`, { AGENT_SSH_ENABLED: enabled ? '1' : '0', AGENT_SSH_PORT: String(port ?? ssh.port) });
      ssh = { enabled, port: port ?? ssh.port };
      return ssh;
    },
    otaList: async () => linuxOtaList(linuxOtaFacts(cfg.imageVersion)),
    appList: async () => installedPackages(undefined, await runningProcessNames()),
    // Refused on Linux like the two above unless AGENT_UNINSTALL_CMD is set (linuxUninstallHandler).
    uninstall: async (pkg) => {
      if (!PACKAGE_NAME.test(pkg)) throw new Error(`Not a package name: ${pkg.slice(0, 130)}`);
      return hook(cfg.uninstallCmd, `uninstall ${pkg}`, { APP_PACKAGE: pkg });
    },
  };
}

/**
 * Uninstall (65606) for a terminal whose operator set AGENT_UNINSTALL_CMD. DOPS-7 has Linux devices
 * refuse uninstall, and the shared device handlers do; an operator who gives the agent a way to remove
 * packages opts this terminal out of that refusal, and the agent puts this handler in their place.
 */
export function linuxUninstallHandler(backend: DeviceBackend): CommandHandler {
  return async (req) => {
    const pkg = decodeRequest(Command.Uninstall, req.data)?.data.packageName ?? '';
    if (!PACKAGE_NAME.test(pkg)) return { result: Result.MessageError, data: { message: 'packageName must be a package name' } };
    try {
      return { result: Result.Success, data: { message: await backend.uninstall(pkg) } };
    } catch (err) {
      return { result: Result.Fail, data: { message: err instanceof Error ? err.message : String(err) } };
    }
  };
}
