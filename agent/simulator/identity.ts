import { SUPPORT_FLAGS, type SupportFlag } from '../../protocol/index.ts';
import type { DeviceEntityFields } from '../device-session.ts';
import { pick, seededRandom } from './prng.ts';
import { seedOf } from './telemetry.ts';

/*
 * What a simulated terminal is, beyond its model: the device entity's fields (devices-and-commerce
 * section 3). Every value follows from the serial (and whether the device runs Android or Linux), so a
 * device is the same terminal in every run, and what it reports at login is what its system info (65613)
 * shows: the value a user reads in the system-info tab finds the device in the list's filter.
 */

const GIB = 1024 ** 3;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Manufacturers and their type allocation codes (the IMEI's first 8 digits). */
const ANDROID_MAKERS: readonly { readonly name: string; readonly tacs: readonly string[] }[] = [
  { name: 'Terminal Devices Ltd.', tacs: ['86801504', '86801505'] },
  { name: 'Shenzhen Handheld Co.', tacs: ['86452103', '86452104'] },
  { name: 'Pacific POS Systems', tacs: ['35693811', '35693812'] },
  { name: 'Nordlicht Mobile GmbH', tacs: ['35271409'] },
];
const LINUX_MAKERS = ['Embedded Systems Co.', 'Gateway Works Ltd.', 'Kiosk Hardware Inc.'] as const;
const MCU_VERSIONS = ['v1.01', 'v1.03', 'v1.10', 'v2.00', 'v2.01'] as const;
const GNSS_MODELS = ['L76K', 'ATGM336H', 'UBX-M8030'] as const;
const LTE_MODELS = ['EC25-E', 'EG91', 'SIM7600G'] as const;
const BASEBANDS = ['MPSS.HA.1.0', 'MPSS.HA.1.2', 'MPSS.AT.4.1', 'MOLY.LR12A.R3'] as const;
// Installs between 2023-01-01 and 2024-10-01 UTC (the simulated images are from October 2024).
const INSTALLED_FROM = Date.UTC(2023, 0, 1);
const INSTALL_SPREAD_DAYS = 639;

/**
 * A battery's day: discharging from 100 % to 15 % over 8 hours, then charging back over 2. Each device
 * is somewhere else in the cycle; the level moves a percent every few minutes, as a real one does.
 */
const DISCHARGE_MS = 8 * HOUR_MS;
const CHARGE_MS = 2 * HOUR_MS;
const FULL = 100;
const EMPTY = 15;

/** The Luhn check digit of a string of digits (an IMEI's 15th digit). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Doubling starts at the digit next to where the check digit goes.
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** A locally administered unicast MAC (first octet 0x02), so it never collides with a real vendor's. */
function mac(random: () => number): string {
  return Array.from({ length: 6 }, (_, i) => (i === 0 ? 0x02 : Math.floor(random() * 256)).toString(16).padStart(2, '0')).join(':');
}

/**
 * The IMEI's 6-digit serial part. A fleet's serials are a prefix and a number (SIM00042), so the number
 * (shifted by the prefix's hash) gives each of up to a million devices of a fleet its own IMEI, where
 * random digits would repeat within a few thousand devices.
 */
function imeiSerial(sn: string): number {
  const numbered = /^(.*?)(\d+)$/.exec(sn);
  if (!numbered) return seedOf(`imei:${sn}`) % 1_000_000;
  return (Number((numbered[2] ?? '0').slice(-9)) + seedOf(`imei:${numbered[1] ?? ''}`)) % 1_000_000;
}

export interface SimulatedIdentity {
  readonly manufacturer: string;
  /** 15 digits with a valid Luhn check digit; undefined on a terminal without a cellular modem (Linux). */
  readonly imei: string | undefined;
  readonly basebandVersion: string | undefined;
  readonly lteModel: string | undefined;
  readonly gnssModel: string | undefined;
  readonly wlanMac: string;
  /** The Bluetooth adapter's MAC on Android; on Linux the second MAC is the Ethernet port's. */
  readonly secondMac: string;
  readonly mcuVersion: string;
  readonly hardwareId: string;
  readonly terminalVersion: string;
  /** Epoch ms. */
  readonly installDate: number;
  readonly storageTotal: number;
  readonly storageFree: number;
  /** How long the device had been up when the simulator started it. */
  readonly upBeforeStartMs: number;
  readonly support: Readonly<Record<SupportFlag, boolean>>;
  /** Battery percent at `now` (epoch ms); undefined on mains power (Linux). */
  battery(now: number): number | undefined;
}

/** The identity of the simulated terminal with serial `sn`. */
export function simulatedIdentity(sn: string, systemType: 'android' | 'linux'): SimulatedIdentity {
  // Its own stream, apart from the telemetry's (seedOf(sn)) and the backend's, so neither shifts the other.
  const random = seededRandom(seedOf(`identity:${sn}`));
  const linux = systemType === 'linux';
  const maker = pick(random, ANDROID_MAKERS);
  const linuxMaker = pick(random, LINUX_MAKERS);
  const imeiBody = `${pick(random, maker.tacs)}${String(imeiSerial(sn)).padStart(6, '0')}`;
  const wlanMac = mac(random);
  const secondMac = mac(random);
  const storageTotal = pick(random, [16, 32, 64, 128]) * GIB;
  const storageFree = Math.round(storageTotal * (0.2 + random() * 0.6));
  const phase = random() * (DISCHARGE_MS + CHARGE_MS);
  const identity = {
    manufacturer: linux ? linuxMaker : maker.name,
    imei: linux ? undefined : `${imeiBody}${luhnCheckDigit(imeiBody)}`,
    basebandVersion: linux ? undefined : pick(random, BASEBANDS),
    lteModel: linux ? undefined : pick(random, LTE_MODELS),
    gnssModel: linux ? undefined : pick(random, GNSS_MODELS),
    wlanMac,
    secondMac,
    mcuVersion: pick(random, MCU_VERSIONS),
    hardwareId: `HW${seedOf(`hardware:${sn}`).toString(16).toUpperCase().padStart(8, '0')}`,
    terminalVersion: `3.${Math.floor(random() * 4)}.${Math.floor(random() * 20)}`,
    installDate: INSTALLED_FROM + Math.floor(random() * INSTALL_SPREAD_DAYS) * DAY_MS + Math.floor(random() * DAY_MS),
    storageTotal,
    storageFree,
    upBeforeStartMs: Math.floor(random() * 5 * DAY_MS),
    // Linux terminals (gateways, kiosks) have Wi-Fi and take system upgrades; Android ones vary.
    support: Object.fromEntries(SUPPORT_FLAGS.map((f) => [f, linux ? ['wlan', 'wifi', 'systemUpgrade'].includes(f) : random() < 0.8])) as Record<SupportFlag, boolean>,
    battery: (now: number): number | undefined => {
      if (linux) return undefined;
      const t = (now + phase) % (DISCHARGE_MS + CHARGE_MS);
      const level = t < DISCHARGE_MS ? FULL - ((FULL - EMPTY) * t) / DISCHARGE_MS : EMPTY + ((FULL - EMPTY) * (t - DISCHARGE_MS)) / CHARGE_MS;
      return Math.round(level);
    },
  };
  return identity;
}

/**
 * The device entity's fields a simulated terminal reports at login, at `now`, booted at `bootedAt`: the
 * same values its system info (65613) answers with.
 */
export function simulatedEntityFields(identity: SimulatedIdentity, systemType: 'android' | 'linux', now: number, bootedAt: number): DeviceEntityFields {
  const battery = identity.battery(now);
  return {
    manufacturer: identity.manufacturer,
    ...(identity.imei === undefined ? {} : { imei: identity.imei }),
    ...(identity.basebandVersion === undefined ? {} : { basebandVersion: identity.basebandVersion }),
    ...(identity.lteModel === undefined ? {} : { lteModel: identity.lteModel }),
    ...(identity.gnssModel === undefined ? {} : { gnssModel: identity.gnssModel }),
    wlanMac: identity.wlanMac,
    ...(systemType === 'linux' ? {} : { bluetoothMac: identity.secondMac }),
    mcuVersion: identity.mcuVersion,
    hardwareId: identity.hardwareId,
    terminalVersion: identity.terminalVersion,
    installDate: identity.installDate,
    uptime: Math.max(0, Math.round((now - bootedAt) / 1000)),
    storageTotal: identity.storageTotal,
    storageFree: identity.storageFree,
    ...(battery === undefined ? {} : { battery }),
    supportFlags: SUPPORT_FLAGS.filter((f) => identity.support[f]),
  };
}

/** A screen's size in its own pixels. */
export interface ScreenSize {
  readonly width: number;
  readonly height: number;
}

/** Screen sizes of the simulated models (phones and POS terminals portrait, the tablet and Linux kiosks landscape). */
const SCREENS: Readonly<Record<string, ScreenSize>> = {
  'P8 Pro': { width: 1080, height: 2400 },
  P10: { width: 1080, height: 1920 },
  'T2 Lite': { width: 720, height: 1280 },
  'K9 POS': { width: 800, height: 1280 },
  'M6 Tablet': { width: 1920, height: 1200 },
  'L1 Gateway': { width: 1280, height: 720 },
  'L3 Kiosk': { width: 1920, height: 1080 },
};

/** The screen of a simulated device of `model` (1080x1920 for a model not listed). */
export function simulatedScreen(model: string): ScreenSize {
  return SCREENS[model] ?? { width: 1080, height: 1920 };
}
