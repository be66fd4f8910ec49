import type { Subscription } from 'rxjs';
import {
  AbnormalType,
  type AbnormalTypeName,
  type Clock,
  Command,
  type LocationUpload,
  type StatusUpload,
  type TimerHandle,
} from '../../protocol/index.ts';
import type { DeviceSession } from '../device-session.ts';
import { pick, seededRandom } from './prng.ts';

/** How often and how eventfully a simulated device reports. */
export interface TelemetryProfile {
  /** Status upload period; the first upload goes right after login. */
  readonly everyMs: number;
  /** Chance per upload of a device-reported abnormal event (crash, ANR, overheat, ...). */
  readonly abnormalChance: number;
  /** Chance per upload of a short CPU spike above 90 %, which the platform records as cpu_high. */
  readonly spikeChance: number;
}

// One status a minute per device is 833 messages/s for 50,000 devices, which the gateway's batched
// ingestion absorbs; 2 % abnormal per upload gives a few events per device per hour.
export const DEFAULT_TELEMETRY_PROFILE: TelemetryProfile = { everyMs: 60_000, abnormalChance: 0.02, spikeChance: 0.01 };

interface Place {
  readonly country: string;
  readonly region: string;
  readonly lat: number;
  readonly lng: number;
  readonly weight: number;
}

// Where simulated fleets are deployed: mostly domestic (the spec's country flag is domestic or abroad),
// with a spread abroad so maps and country tables have something to show.
const PLACES: readonly Place[] = [
  { country: 'CN', region: 'Guangdong', lat: 23.13, lng: 113.26, weight: 14 },
  { country: 'CN', region: 'Beijing', lat: 39.9, lng: 116.4, weight: 10 },
  { country: 'CN', region: 'Shanghai', lat: 31.23, lng: 121.47, weight: 10 },
  { country: 'CN', region: 'Zhejiang', lat: 30.27, lng: 120.15, weight: 8 },
  { country: 'CN', region: 'Sichuan', lat: 30.66, lng: 104.07, weight: 6 },
  { country: 'CN', region: 'Hubei', lat: 30.59, lng: 114.31, weight: 5 },
  { country: 'CN', region: 'Shaanxi', lat: 34.34, lng: 108.94, weight: 3 },
  { country: 'CN', region: 'Xinjiang', lat: 43.83, lng: 87.62, weight: 2 },
  { country: 'US', region: 'California', lat: 34.05, lng: -118.24, weight: 4 },
  { country: 'US', region: 'Texas', lat: 29.76, lng: -95.37, weight: 3 },
  { country: 'US', region: 'New York', lat: 40.71, lng: -74.0, weight: 3 },
  { country: 'DE', region: 'Bavaria', lat: 48.14, lng: 11.58, weight: 3 },
  { country: 'GB', region: 'England', lat: 51.51, lng: -0.13, weight: 2 },
  { country: 'BR', region: 'São Paulo', lat: -23.55, lng: -46.63, weight: 3 },
  { country: 'IN', region: 'Maharashtra', lat: 19.08, lng: 72.88, weight: 3 },
  { country: 'JP', region: 'Tokyo', lat: 35.68, lng: 139.69, weight: 2 },
  { country: 'AU', region: 'New South Wales', lat: -33.87, lng: 151.21, weight: 2 },
  { country: 'ZA', region: 'Gauteng', lat: -26.2, lng: 28.05, weight: 1 },
  { country: 'AE', region: 'Dubai', lat: 25.2, lng: 55.27, weight: 1 },
  { country: 'MX', region: 'Mexico City', lat: 19.43, lng: -99.13, weight: 1 },
];
const TOTAL_WEIGHT = PLACES.reduce((n, p) => n + p.weight, 0);

const DEVICE_EVENTS: readonly AbnormalTypeName[] = [AbnormalType.Crash, AbnormalType.Anr, AbnormalType.Overheat, AbnormalType.LowStorage, AbnormalType.UnexpectedReboot];
const GIB = 1024 ** 3;

/** A stable seed from a serial number (FNV-1a), so a device reports from the same place every run. */
export function seedOf(sn: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < sn.length; i++) h = Math.imul(h ^ sn.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Where a simulated device is: a weighted place with a few kilometres of seeded jitter. */
export function simulatedLocation(random: () => number): LocationUpload {
  let r = random() * TOTAL_WEIGHT;
  let place = PLACES[0] as Place;
  for (const p of PLACES) {
    r -= p.weight;
    if (r < 0) {
      place = p;
      break;
    }
  }
  const jitter = () => (random() - 0.5) * 1.5;
  return { country: place.country, region: place.region, lat: Math.max(-90, Math.min(90, place.lat + jitter())), lng: Math.max(-180, Math.min(180, place.lng + jitter())) };
}

/** A device's battery level at a time (epoch ms); undefined on mains power. */
export type BatteryLevel = (now: number) => number | undefined;

/**
 * The load model of one simulated device: a baseline with noise, and rare spikes. Its battery is the
 * device's own level when given one (simulatedIdentity), else a random level per upload (benches).
 */
export class SimulatedLoad {
  readonly #random: () => number;
  readonly #battery: BatteryLevel | undefined;
  readonly #cpuBase: number;
  readonly #memBase: number;
  readonly memTotal: number;

  constructor(random: () => number, battery?: BatteryLevel) {
    this.#random = random;
    this.#battery = battery;
    this.#cpuBase = 8 + random() * 45;
    this.memTotal = pick(random, [2, 3, 4, 6, 8]) * GIB;
    this.#memBase = 0.3 + random() * 0.45;
  }

  /** The next status upload at `now`; `spike` pushes CPU (and memory) above 90 %. */
  next(spike: boolean, now = 0): StatusUpload {
    const r = this.#random;
    const cpu = spike ? 91 + r() * 9 : Math.max(0, Math.min(89, this.#cpuBase + (r() - 0.5) * 20));
    const memShare = spike && r() < 0.5 ? 0.92 + r() * 0.07 : Math.max(0.05, Math.min(0.89, this.#memBase + (r() - 0.5) * 0.1));
    const battery = this.#battery ? this.#battery(now) : Math.round(20 + r() * 80);
    return { cpu: Math.round(cpu * 10) / 10, memUsed: Math.round(this.memTotal * memShare), memTotal: this.memTotal, ...(battery === undefined ? {} : { battery }) };
  }
}

/**
 * Makes a simulated device report telemetry while it is logged in: its location and a status upload at
 * login, then a status every `profile.everyMs` on the injected clock, with occasional spikes and abnormal
 * events. Returns a function that stops it.
 */
export function reportTelemetry(session: DeviceSession, clock: Clock, profile: TelemetryProfile = DEFAULT_TELEMETRY_PROFILE, battery?: BatteryLevel): () => void {
  const random = seededRandom(seedOf(session.sn));
  const location = simulatedLocation(random);
  const load = new SimulatedLoad(random, battery);
  let timer: TimerHandle | undefined;
  const send = (msgId: number, data: unknown) => {
    try {
      session.engine.send({ msgId, data });
    } catch {
      // Dropped while sending: the next login reports again.
    }
  };
  const tick = () => {
    const status = load.next(random() < profile.spikeChance, clock.now());
    send(Command.StatusUpload, status);
    if (random() < profile.abnormalChance) {
      const event = load.next(false, clock.now());
      send(Command.AbnormalEvent, { type: pick(random, DEVICE_EVENTS), time: clock.now(), cpu: event.cpu, memUsed: event.memUsed, memTotal: event.memTotal });
    }
    timer = clock.setTimeout(tick, profile.everyMs);
  };
  const stopTimer = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const sub: Subscription = session.loggedIn$.subscribe((loggedIn) => {
    stopTimer();
    if (!loggedIn) return;
    send(Command.LocationUpload, location);
    tick();
  });
  return () => {
    sub.unsubscribe();
    stopTimer();
  };
}
