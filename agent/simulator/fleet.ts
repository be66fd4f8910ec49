import type { Clock, SubprotocolName, TimerHandle, TransportFactory } from '../../protocol/index.ts';
import type { DeviceSession } from '../device-session.ts';
import { pick, seededRandom } from './prng.ts';
import { createVirtualDevice, simulatedInfo } from './virtual-device.ts';

/** Where the fleet keeps the secrets its devices were issued, so a restart logs in instead of re-enrolling. */
export interface SecretStore {
  load(): Record<string, string>;
  save(secrets: Record<string, string>): void;
}

export interface FleetOptions {
  readonly gatewayUrl: string;
  readonly enrollKey: string;
  readonly count: number;
  readonly seed: number;
  readonly snPrefix: string;
  readonly transport: TransportFactory;
  readonly clock: Clock;
  readonly secrets: SecretStore;
  /** Mean time between random drops across the fleet; 0 turns churn off. */
  readonly churnEveryMs: number;
  /** A dropped device stays away between these bounds. */
  readonly downMs: readonly [number, number];
  readonly rebootDownMs: number;
  /** Devices started per ramp step, so a fleet start is not one burst. */
  readonly rampBatch: number;
  readonly rampEveryMs: number;
  /** Subprotocols the devices offer, preferred first (default: JSON only). */
  readonly subprotocols?: readonly SubprotocolName[];
  /** Devices download pushed content for real (off when simulated download time is off, for benchmarks). */
  readonly pushDownload?: boolean;
  /** Share of pushes that fail, so failure paths and rollout thresholds show in a demo. */
  readonly pushFailRate?: number;
}

export const DEFAULT_FLEET: Omit<FleetOptions, 'gatewayUrl' | 'enrollKey' | 'count' | 'transport' | 'clock' | 'secrets'> = {
  seed: 1,
  snPrefix: 'SIM',
  churnEveryMs: 4_000,
  downMs: [3_000, 15_000],
  rebootDownMs: 4_000,
  rampBatch: 50,
  rampEveryMs: 100,
};

/** N simulated devices in one process, with seeded variety and random drops and returns. */
export class Fleet {
  readonly devices: DeviceSession[] = [];
  readonly #opts: FleetOptions;
  readonly #random: () => number;
  readonly #secrets: Record<string, string>;
  #timers = new Set<TimerHandle>();
  #saveScheduled = false;
  #stopped = false;

  constructor(opts: FleetOptions) {
    this.#opts = opts;
    this.#random = seededRandom(opts.seed);
    this.#secrets = opts.secrets.load();
    const width = Math.max(5, String(opts.count).length);
    for (let i = 1; i <= opts.count; i++) {
      const sn = `${opts.snPrefix}${String(i).padStart(width, '0')}`;
      this.devices.push(
        createVirtualDevice({
          gatewayUrl: opts.gatewayUrl,
          sn,
          secret: this.#secrets[sn],
          enrollKey: opts.enrollKey,
          info: simulatedInfo(this.#random),
          transport: opts.transport,
          clock: opts.clock,
          random: this.#random,
          rebootDownMs: opts.rebootDownMs,
          subprotocols: opts.subprotocols,
          pushDownload: opts.pushDownload,
          pushFailRate: opts.pushFailRate,
          onSecret: (secret) => {
            this.#secrets[sn] = secret;
            this.#scheduleSave();
          },
        }),
      );
    }
  }

  /** Devices currently logged in. */
  get onlineCount(): number {
    return this.devices.filter((d) => d.loggedIn).length;
  }

  start(): void {
    this.#stopped = false;
    for (let i = 0; i < this.devices.length; i += this.#opts.rampBatch) {
      const batch = this.devices.slice(i, i + this.#opts.rampBatch);
      this.#after((i / this.#opts.rampBatch) * this.#opts.rampEveryMs, () => batch.forEach((d) => d.start()));
    }
    if (this.#opts.churnEveryMs > 0) this.#scheduleChurn();
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) this.#opts.clock.clearTimeout(t);
    this.#timers.clear();
    for (const d of this.devices) d.dispose();
    this.#opts.secrets.save(this.#secrets);
  }

  #scheduleChurn(): void {
    // Exponential gaps make drops a Poisson process, like independent devices losing signal.
    const gap = -Math.log(1 - this.#random()) * this.#opts.churnEveryMs;
    this.#after(gap, () => {
      const online = this.devices.filter((d) => d.loggedIn);
      if (online.length > 0) {
        const victim = pick(this.#random, online);
        victim.stop();
        const [lo, hi] = this.#opts.downMs;
        this.#after(lo + this.#random() * (hi - lo), () => victim.start());
      }
      this.#scheduleChurn();
    });
  }

  #scheduleSave(): void {
    if (this.#saveScheduled) return;
    this.#saveScheduled = true;
    this.#after(500, () => {
      this.#saveScheduled = false;
      this.#opts.secrets.save(this.#secrets);
    });
  }

  #after(ms: number, fn: () => void): void {
    const handle = this.#opts.clock.setTimeout(() => {
      this.#timers.delete(handle);
      if (!this.#stopped) fn();
    }, ms);
    this.#timers.add(handle);
  }
}
