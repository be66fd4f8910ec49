import { type Clock, Command, Result } from '../../protocol/index.ts';
import { type CommandHandler, type DeviceInfo, DeviceSession, type DeviceSessionOptions } from '../device-session.ts';
import { pushFileHandler, simulatedPushJob } from '../push/push-file.ts';
import { DEVICE_OPS_COMMANDS, deviceHandlers } from '../ops/device-handlers.ts';
import { pick } from './prng.ts';
import { type ScreenSize, simulatedEntityFields, simulatedIdentity, simulatedScreen } from './identity.ts';
import { streamHandlers } from './video-source.ts';
import { simulatedBackend } from './simulated-backend.ts';
import { reportTelemetry, type TelemetryProfile } from './telemetry.ts';

const ANDROID_MODELS = ['P8 Pro', 'P10', 'T2 Lite', 'K9 POS', 'M6 Tablet'] as const;
const LINUX_MODELS = ['L1 Gateway', 'L3 Kiosk'] as const;

/** Seeded, varied identity of a simulated terminal. */
export function simulatedInfo(random: () => number): DeviceInfo {
  const linux = random() < 0.2;
  const day = 1 + Math.floor(random() * 28);
  return {
    model: linux ? pick(random, LINUX_MODELS) : pick(random, ANDROID_MODELS),
    systemType: linux ? 'linux' : 'android',
    systemVersion: linux ? `Linux 6.1.${Math.floor(random() * 120)}` : `Android ${pick(random, ['10', '11', '12', '13'])}`,
    imageVersion: `2410${String(day).padStart(2, '0')}.${String(Math.floor(random() * 24)).padStart(2, '0')}`,
    networkType: 1 + Math.floor(random() * 3),
  };
}

export interface VirtualDeviceOptions extends Omit<DeviceSessionOptions, 'handlers' | 'info'> {
  readonly info: DeviceInfo;
  readonly clock: Clock;
  /** How long a simulated reboot keeps the device away. */
  readonly rebootDownMs: number;
  /** Status, location and abnormal reports (default: one status a minute); false for none. */
  readonly telemetry?: TelemetryProfile | false;
  /** Download pushed content from the platform for real (bytes counted, SHA-256 checked); off by default. */
  readonly pushDownload?: boolean;
  /** Share of pushes that fail, at download or at install (0 by default). */
  readonly pushFailRate?: number;
  /** The screen's size in pixels (default: its model's, {@link simulatedScreen}); live control and screenshots obey it. */
  readonly screen?: ScreenSize;
}

/**
 * A simulated terminal: a DeviceSession with simulated command handlers. Its login data carries every
 * field of the device entity (its {@link simulatedIdentity}, uptime and battery at the time), the same
 * values its system info answers with.
 */
export function createVirtualDevice(opts: VirtualDeviceOptions): DeviceSession {
  const identity = simulatedIdentity(opts.sn, opts.info.systemType);
  let bootedAt = opts.clock.now() - identity.upBeforeStartMs;
  const reboot: CommandHandler = async (_req, session) => ({
    result: Result.Success,
    afterReply: () => {
      session.stop();
      bootedAt = opts.clock.now() + opts.rebootDownMs;
      opts.clock.setTimeout(() => session.start(), opts.rebootDownMs);
    },
  });
  // Built on a device's first command: a fleet of tens of thousands mostly idles, and each simulated
  // file tree, process table and app list costs memory.
  let backend: ReturnType<typeof simulatedBackend> | undefined;
  const screen = opts.screen ?? simulatedScreen(opts.info.model);
  const backendOf = () => (backend ??= simulatedBackend(opts.sn, opts.info, () => opts.clock.now(), () => bootedAt, screen));
  let ops: ReturnType<typeof deviceHandlers> | undefined;
  const opsOf = (session: DeviceSession) => {
    if (!ops) {
      ops = deviceHandlers(backendOf());
      ops.attach(session);
    }
    return ops;
  };
  const opsHandlers = DEVICE_OPS_COMMANDS.map((id): [number, CommandHandler] => [id, (req, session) => {
    const handler = opsOf(session).handlers.get(id);
    return handler ? handler(req, session) : Promise.resolve({ result: Result.UnknownMessageId });
  }]);
  const device = new DeviceSession({
    ...opts,
    info: () => ({ ...opts.info, ...simulatedEntityFields(identity, opts.info.systemType, opts.clock.now(), bootedAt) }),
    handlers: new Map([
      [Command.Reboot, reboot],
      ...opsHandlers,
      // Live view obeys the device's own support flags: no camera, no camera stream; no microphone, no voice.
      ...streamHandlers(opts.clock, async () => {
        const { support } = await backendOf().systemInfo();
        return { camera: support.camera, mic: support.mic };
      }, screen),
      [Command.PushFile, pushFileHandler(simulatedPushJob({ clock: opts.clock, stepMs: 250, download: opts.pushDownload ? { gatewayUrl: opts.gatewayUrl, sn: opts.sn } : undefined, failRate: opts.pushFailRate, random: opts.random }))],
    ]),
  });
  if (opts.telemetry !== false) reportTelemetry(device, opts.clock, opts.telemetry, identity.battery);
  return device;
}
