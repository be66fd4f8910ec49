import { type Clock, Command, Result } from '../../protocol/index.ts';
import { type CommandHandler, type DeviceInfo, DeviceSession, type DeviceSessionOptions } from '../device-session.ts';
import { pick } from './prng.ts';

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
}

/** A simulated terminal: a DeviceSession with simulated command handlers. */
export function createVirtualDevice(opts: VirtualDeviceOptions): DeviceSession {
  const reboot: CommandHandler = async (_req, session) => ({
    result: Result.Success,
    afterReply: () => {
      session.stop();
      opts.clock.setTimeout(() => session.start(), opts.rebootDownMs);
    },
  });
  const baseInfo: CommandHandler = async () => ({
    result: Result.Success,
    data: { ...opts.info, memory: { total: 4 * 1024 ** 3, free: 1.5 * 1024 ** 3 }, storage: { total: 64 * 1024 ** 3, free: 20 * 1024 ** 3 } },
  });
  return new DeviceSession({
    ...opts,
    info: () => opts.info,
    handlers: new Map([
      [Command.Reboot, reboot],
      [Command.BaseInfo, baseInfo],
    ]),
  });
}
