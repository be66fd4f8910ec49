import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** How long a device admitted may take to log in before its place among the logins in flight is freed. */
export const LOGIN_SLOT_MS = 10_000;

/** A device's place among the logins in flight: given back once its login is answered or its socket closes. */
export interface LoginSlot {
  /** Idempotent. */
  release(): void;
}

const NO_SLOT: LoginSlot = { release: () => undefined };

/**
 * Admission of device sockets, in two limits; past either a device is answered 503 with Retry-After before
 * any upgrade or database read, which its backoff counts as a failed attempt (PROTOCOL.md LIFE-2).
 *
 * - A rate: after a node restart its whole fleet reconnects within a few seconds; the node works through
 *   the storm at a steady pace instead of being hit by everything at once and then again by the echoes.
 * - Logins in flight: devices admitted whose login is not answered yet (admission read, handshake, login
 *   write). A rate does not know how fast this machine is: on a loaded node the queue of logins grew past
 *   the 10 s a device waits for its handshake, every login then finished for a device that had given up,
 *   and its retry queued behind the next (issue 21: 100,000 devices never came back). A bound on the
 *   queue keeps each admitted login short and turns the rest away at the cost of a 503.
 */
export class DeviceAdmissionGate {
  readonly #limiter: RateLimiterMemory | undefined;
  readonly #maxInFlight: number;
  #inFlight = 0;
  /** Device sockets turned away for either limit, for /metrics. */
  refused = 0;

  /** `perSecond` 0 admits at any rate; `maxInFlight` 0 any number of logins at once. */
  constructor(perSecond: number, maxInFlight = 0) {
    this.#limiter = perSecond > 0 ? new RateLimiterMemory({ points: perSecond, duration: 1 }) : undefined;
    this.#maxInFlight = maxInFlight;
  }

  /** Logins admitted and not yet answered (diagnostics and tests). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Resolves the device's login slot when it may go on to authentication (given back when `socket`
   * closes, if not before); otherwise answers the upgrade with 503 and resolves undefined.
   */
  async admit(_req: IncomingMessage, socket: Duplex): Promise<LoginSlot | undefined> {
    if (this.#maxInFlight > 0 && this.#inFlight >= this.#maxInFlight) return this.#turnAway(socket, 1_000);
    if (this.#limiter) {
      try {
        await this.#limiter.consume('devices');
      } catch (res: unknown) {
        if (!(res instanceof RateLimiterRes)) throw res;
        return this.#turnAway(socket, res.msBeforeNext);
      }
    }
    return this.#maxInFlight > 0 ? this.#slot(socket) : NO_SLOT;
  }

  /** A place held until released, until `socket` closes, or for LOGIN_SLOT_MS, whichever comes first. */
  #slot(socket: Duplex): LoginSlot {
    this.#inFlight++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      clearTimeout(timer);
      // Nothing of the slot stays on a socket held for hours after its login.
      socket.off('close', release);
      this.#inFlight--;
    };
    socket.once('close', release);
    // A device that connects and never logs in gives its place back anyway.
    const timer = setTimeout(release, LOGIN_SLOT_MS);
    timer.unref();
    return { release };
  }

  #turnAway(socket: Duplex, msBeforeNext: number): undefined {
    this.refused++;
    const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1_000));
    socket.end(`HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${retryAfter}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    return undefined;
  }
}
