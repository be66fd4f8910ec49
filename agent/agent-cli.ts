import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, Result, systemClock } from '../protocol/index.ts';
import { type CommandHandler, DeviceSession, entityFieldsOf } from './device-session.ts';
import { httpPushJob, pushFileHandler } from './push/push-file.ts';
import { linuxDeviceInfo } from './linux-info.ts';
import { deviceHandlers } from './ops/device-handlers.ts';
import { linuxBackend, linuxBackendConfig, linuxUninstallHandler } from './ops/linux-backend.ts';
import { linuxSystemInfo } from './ops/linux-proc.ts';
import { screenStreamConfig, screenStreamHandlers } from './ops/screen-stream.ts';
import { agentTelemetrySettings, type AgentTelemetrySettings, LinuxStatusReader } from './telemetry/linux-status.ts';
import { reportStatus, withRuntimeUpload } from './telemetry/status-reporter.ts';
import { wsTransport } from './ws-transport.ts';

// The device agent for a real Linux terminal. See README "Running the agent on a Linux terminal".
const env = process.env;
const gatewayUrl = env.AGENT_GATEWAY_URL ?? 'ws://127.0.0.1:8080/device/websocket';
const sn = env.AGENT_SN ?? os.hostname();
const stateFile = path.resolve(env.AGENT_STATE_FILE ?? path.join(os.homedir(), '.device-agent', 'state.json'));
const backendCfg = () => linuxBackendConfig(env, process.argv.slice(2), path.dirname(stateFile), log);
// Lines go to stdout and to the agent's log file, whose tail grab-log sends.
const logFile = path.resolve(env.AGENT_LOG_FILE ?? path.join(path.dirname(stateFile), 'agent.log'));
const log = (msg: string) => {
  const line = `[agent ${sn}] ${msg}\n`;
  process.stdout.write(line);
  try {
    fs.mkdirSync(path.dirname(logFile), { recursive: true });
    fs.appendFileSync(logFile, `${new Date().toISOString()} ${line}`);
  } catch {
    // logging must never stop the agent
  }
};

function loadSecret(): string | undefined {
  try {
    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { sn?: string; secret?: string };
    return state.sn === sn ? state.secret : undefined;
  } catch {
    return undefined;
  }
}

function saveSecret(secret: string): void {
  fs.mkdirSync(path.dirname(stateFile), { recursive: true });
  fs.writeFileSync(stateFile, JSON.stringify({ sn, secret }), { mode: 0o600 });
  log(`enrolled; secret kept in ${stateFile}`);
}

// Reboot runs AGENT_REBOOT_CMD when set (for example "systemctl reboot"); by default it is simulated:
// logged, then the agent disconnects for a few seconds as a rebooting terminal would.
const reboot: CommandHandler = async (_req, session) => ({
  result: Result.Success,
  afterReply: () => {
    const cmd = env.AGENT_REBOOT_CMD;
    if (cmd) {
      log(`reboot requested: running "${cmd}"`);
      execFile('/bin/sh', ['-c', cmd], (err) => err && log(`reboot command failed: ${err.message}`));
      return;
    }
    log('reboot requested: simulating (set AGENT_REBOOT_CMD to really reboot)');
    session.stop();
    setTimeout(() => session.start(), 5_000);
  },
});

const secret = loadSecret();
if (!secret && !env.AGENT_ENROLL_KEY) {
  process.stderr.write(`No device secret in ${stateFile}: set AGENT_ENROLL_KEY to the organisation's enrolment key to enrol.\n`);
  process.exit(2);
}

let telemetry: AgentTelemetrySettings;
try {
  telemetry = agentTelemetrySettings(env);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}

const cfg = backendCfg();
const backend = linuxBackend(cfg);
const ops = deviceHandlers(backend);
const runtimeQuery = ops.handlers.get(Command.RuntimeQuery);
const screen = screenStreamHandlers(screenStreamConfig(env, log), systemClock);
const statusReader = new LinuxStatusReader();
const session = new DeviceSession({
  gatewayUrl,
  sn,
  secret,
  enrollKey: env.AGENT_ENROLL_KEY,
  // The login data carries what the system-info tab shows (maker, MACs, uptime, storage, support flags),
  // so the device list finds this terminal by it; battery and place follow from status and location uploads.
  info: () => ({ ...linuxDeviceInfo(), ...entityFieldsOf(linuxSystemInfo()) }),
  handlers: new Map<number, CommandHandler>([
    [Command.Reboot, reboot],
    ...ops.handlers,
    // Every runtime sample a console asks for also goes to the platform as a runtime upload (command 4).
    ...(runtimeQuery ? [[Command.RuntimeQuery, withRuntimeUpload(runtimeQuery, os.availableParallelism())] as const] : []),
    // With an uninstall hook the operator opts this terminal out of DOPS-7's refusal (README, agent settings).
    ...(cfg.uninstallCmd ? [[Command.Uninstall, linuxUninstallHandler(backend)] as const] : []),
    ...screen.handlers,
    [Command.PushFile, pushFileHandler(httpPushJob({ gatewayUrl, sn, dir: path.join(path.dirname(stateFile), 'push'), log }))],
  ]),
  transport: wsTransport(),
  clock: systemClock,
  onSecret: saveSecret,
  onLoginFailed: (reason) => {
    log(`gateway refused this device: ${reason}`);
    process.exitCode = 1;
  },
});
ops.attach(session);
// Status (command 3) at each login and every AGENT_STATUS_EVERY_S, read from /proc, /sys and statfs;
// the location (6) only when AGENT_LOCATION gives one: a Linux terminal has no GPS to ask.
const stopStatus = reportStatus(session, systemClock, { everyMs: telemetry.everyMs, read: () => statusReader.read(), location: telemetry.location, log });
session.loggedIn$.subscribe((up) => log(up ? 'online' : 'offline'));
session.engine.connection$.subscribe((s) => {
  // The gateway forgets a device's streams with its socket: capture commands stop with it.
  if (s.status !== 'open') screen.stopAll();
  if (s.status === 'stopped' && s.reason === 'rejected') process.exit(1);
});
session.start();
const stop = () => {
  stopStatus();
  screen.stopAll();
  session.dispose();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
