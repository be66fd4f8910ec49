import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Admission rate for device sockets: after a node restart its whole fleet reconnects within a few
 * seconds. Past the rate a device is answered 503 with Retry-After before any upgrade or database read,
 * which its backoff counts as a failed attempt (PROTOCOL.md LIFE-2), so the node works through the storm
 * at a steady pace instead of being hit by everything at once and then again by the echoes.
 */
export class DeviceAdmissionGate {
  readonly #limiter: RateLimiterMemory | undefined;
  /** Device sockets turned away for the rate, for /metrics. */
  refused = 0;

  /** `perSecond` 0 admits every device. */
  constructor(perSecond: number) {
    this.#limiter = perSecond > 0 ? new RateLimiterMemory({ points: perSecond, duration: 1 }) : undefined;
  }

  /**
   * Resolves true when the device may go on to authentication; otherwise answers the upgrade with 503
   * and resolves false.
   */
  async admit(_req: IncomingMessage, socket: Duplex): Promise<boolean> {
    if (!this.#limiter) return true;
    try {
      await this.#limiter.consume('devices');
      return true;
    } catch (res: unknown) {
      if (!(res instanceof RateLimiterRes)) throw res;
      this.refused++;
      const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1_000));
      socket.end(`HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${retryAfter}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return false;
    }
  }
}
