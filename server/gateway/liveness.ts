import { CloseCode, type Clock, type TimerHandle } from '../../protocol/index.ts';
import type { DeviceLink } from './device-link.ts';

/** Devices heartbeat every 300 s; one silent for a heartbeat and two 10 s checks is gone (PROTOCOL.md LIFE-1). */
export const DEVICE_SILENCE_MS = 300_000 + 2 * 10_000;
const SWEEP_EVERY_MS = 10_000;

/**
 * Closes device sockets that have gone silent, so a device whose network vanished without a TCP close
 * is marked offline within one heartbeat window. One timer sweeps every link, instead of one per device.
 */
export class LivenessSweep {
  readonly #links: ReadonlyMap<string, DeviceLink>;
  readonly #clock: Clock;
  readonly #silenceMs: number;
  #timer: TimerHandle | undefined;

  constructor(links: ReadonlyMap<string, DeviceLink>, clock: Clock, silenceMs = DEVICE_SILENCE_MS) {
    this.#links = links;
    this.#clock = clock;
    this.#silenceMs = silenceMs;
  }

  start(): void {
    this.#schedule();
  }

  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Closes every link silent for longer than the limit; returns how many. */
  sweep(): number {
    const cutoff = this.#clock.now() - this.#silenceMs;
    let closed = 0;
    for (const link of this.#links.values()) {
      if (link.lastRx < cutoff) {
        link.peer.ws.close(CloseCode.HeartbeatTimeout, 'heartbeat timeout');
        // A peer that cannot even answer the close handshake is cut off.
        link.peer.ws.terminate();
        closed++;
      }
    }
    return closed;
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimeout(() => {
      this.sweep();
      this.#schedule();
    }, SWEEP_EVERY_MS);
  }
}
