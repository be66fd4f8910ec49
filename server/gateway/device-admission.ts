import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { MAX_RETRY_AFTER_MS } from '../../protocol/index.ts';

/** How long a device admitted may take to log in before its place among the logins in flight is freed. */
export const LOGIN_SLOT_MS = 10_000;

/** A device's place among the logins in flight: given back once its login is answered or its socket closes. */
export interface LoginSlot {
  /** Idempotent. */
  release(): void;
}

export interface AdmissionLimits {
  /** Device sockets admitted per second; 0 admits at any rate. */
  readonly perSecond: number;
  /** Logins admitted and not yet answered, at most; 0 bounds nothing. */
  readonly maxInFlight?: number;
  /**
   * How long an upgrade past either limit may wait for its turn before it is answered 503 (0: at once).
   * Also bounds how many wait: as many as the node gets through in that time at its measured pace, and
   * never more than the rate admits in it (without a rate, than may be in flight).
   */
  readonly maxWaitMs?: number;
  /** Logins a second assumed until the gate has measured its pace (default below, in the constructor). */
  readonly initialPace?: number;
}

const NO_SLOT: LoginSlot = { release: () => undefined };

/** How often the gate's pace is measured while it is full. */
const PACE_WINDOW_MS = 250;


/** An upgrade waiting for its turn; settled exactly once (admitted, turned away, or its socket gone). */
interface Waiting {
  readonly socket: Duplex;
  readonly since: number;
  /** The gate's `#holds` when it arrived: more at its admission means it was held for its turn. */
  readonly holdsBefore: number;
  readonly resolve: (slot: LoginSlot | undefined) => void;
  readonly onClose: () => void;
  settled: boolean;
}

/**
 * Admission of device sockets, in two limits; past either a device waits its turn for a moment and, if its
 * turn does not come, is answered 503 with Retry-After before any upgrade or database read, which its
 * backoff counts as a failed attempt (PROTOCOL.md LIFE-2).
 *
 * - A rate: after a node restart its whole fleet reconnects within a few seconds; the node works through
 *   the storm at a steady pace instead of being hit by everything at once and then again by the echoes.
 * - Logins in flight: devices admitted whose login is not answered yet (admission read, handshake, login
 *   write). A rate does not know how fast this machine is: on a loaded node the queue of logins grew past
 *   the 10 s a device waits for its handshake, every login then finished for a device that had given up,
 *   and its retry queued behind the next (issue 21: 100,000 devices never came back). A bound on the
 *   queue keeps each admitted login short.
 * - The wait: refusing at once cost more than it saved. A storm of 20,000 devices met 29,893 refusals on
 *   the way in (1.5 per login), each a connection, an HTTP request and a 503 on both sides, and a backoff
 *   of up to 30 s; an upgrade that waits a second or two for a place is usually admitted instead. Waiting
 *   upgrades are admitted in arrival order; the wait is bounded well under the device's 10 s handshake
 *   timeout, so an admitted device has not given up.
 * - Returns: a refused device is told when to come back (`Retry-After`), the next free moment at the
 *   pace the gate measures, which devices honour instead of their backoff (LIFE-2); a storm then comes
 *   back spread over the time the node needs for it, and each device is refused about once.
 */
export class DeviceAdmissionGate {
  readonly #limiter: RateLimiterMemory | undefined;
  readonly #maxInFlight: number;
  readonly #maxWaitMs: number;
  readonly #maxWaiting: number;
  readonly #now: () => number;
  #inFlight = 0;
  /** Arrival order; the first `#head` entries are done (a queue without shifting the array each time). */
  #waiting: Waiting[] = [];
  #head = 0;
  /** Entries of `#waiting` not settled yet (a socket that closes while waiting is settled at once). */
  #live = 0;
  #draining = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  /** Times the queue stopped at a limit with upgrades in it. */
  #holds = 0;
  /**
   * Logins a second through the gate while it was full (a moving average over PACE_WINDOW_MS windows):
   * how fast this node really logs devices in, which neither limit knows. Refused devices are given returns at this
   * pace, and no more wait than it gets through within the wait.
   */
  #pace: number;
  #granted = 0;
  #windowStart: number;
  #holdsAtWindowStart = 0;
  #refusedAtWindowStart = 0;
  /** The next free return to give a refused device (on the `now` clock). */
  #nextReturn = 0;
  /** Device sockets turned away for either limit, for /metrics. */
  refused = 0;
  /** Device sockets admitted after waiting for a place or for the rate, for /metrics. */
  waited = 0;

  constructor(limits: AdmissionLimits, now: () => number = performance.now.bind(performance)) {
    this.#limiter = limits.perSecond > 0 ? new RateLimiterMemory({ points: limits.perSecond, duration: 1 }) : undefined;
    this.#maxInFlight = limits.maxInFlight ?? 0;
    this.#maxWaitMs = limits.maxWaitMs ?? 0;
    // Those the rate admits within the wait; past them one would surely wait in vain. Without a rate, as
    // many as may be in flight.
    this.#maxWaiting = limits.perSecond > 0 ? Math.ceil((limits.perSecond * this.#maxWaitMs) / 1_000) : this.#maxInFlight || Infinity;
    this.#now = now;
    this.#windowStart = now();
    // Until measured, a quarter of the most the limits allow in a second (250 by default). A storm's first
    // second is refused before any measurement: returns given too soon are refused again, those given too
    // late leave the node idle. A 50,000-device storm was refused 72,938 times starting from the whole
    // limit, 42,834 from a quarter, in less time (DECISIONS, Device logins in storms).
    const allowed = [limits.perSecond, this.#maxInFlight].filter((n) => n > 0);
    this.#pace = limits.initialPace ?? (allowed.length > 0 ? Math.min(...allowed) : 1_000) / 4;
  }

  /** Admissions a second this gate gives refused devices their returns at (diagnostics and tests). */
  get pace(): number {
    return this.#pace;
  }

  /** Logins admitted and not yet answered (diagnostics and tests). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Upgrades waiting for their turn (diagnostics and tests). */
  get waiting(): number {
    return this.#live;
  }

  /**
   * Resolves the device's login slot when it may go on to authentication (given back when `socket`
   * closes, if not before); otherwise answers the upgrade with 503 and resolves undefined.
   */
  async admit(_req: IncomingMessage, socket: Duplex): Promise<LoginSlot | undefined> {
    if (!this.#limiter && this.#maxInFlight === 0) return NO_SLOT;
    if (this.#maxWaitMs === 0) {
      if (this.#maxInFlight > 0 && this.#inFlight >= this.#maxInFlight) return this.#turnAway(socket, 1_000);
      const wait = await this.#take();
      if (wait > 0) return this.#turnAway(socket, wait);
      if (this.#maxInFlight === 0) this.#counted();
      return this.#maxInFlight > 0 ? this.#slot(socket) : NO_SLOT;
    }
    // Past what the node gets through within the wait, one would wait in vain: turned away at once instead.
    if (this.waiting >= Math.min(this.#maxWaiting, Math.ceil((this.#pace * this.#maxWaitMs) / 1_000))) return this.#turnAway(socket, this.#maxWaitMs);
    return new Promise((resolve) => {
      const entry: Waiting = { socket, since: this.#now(), holdsBefore: this.#holds, resolve, settled: false, onClose: () => this.#settle(entry, undefined) };
      // A reset while waiting frees its place in the queue at once (an orderly close is seen only once read).
      socket.once('close', entry.onClose);
      this.#live++;
      this.#waiting.push(entry);
      void this.#drain();
    });
  }

  /** Admits waiting upgrades in order while a place is free and the rate allows; turns away the overdue. */
  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#live > 0) {
        const first = this.#waiting[this.#head] as Waiting;
        if (first.settled || first.socket.destroyed) {
          // Nothing to answer; settled all the same, so the upgrade waiting on it lets go of it.
          this.#next();
          this.#settle(first, undefined);
          continue;
        }
        if (this.#now() - first.since >= this.#maxWaitMs) {
          this.#next();
          this.#settle(first, this.#turnAway(first.socket, 1_000));
          continue;
        }
        if (this.#maxInFlight > 0 && this.#inFlight >= this.#maxInFlight) {
          // A place given back drains again; the timer turns the first away when its wait is over.
          this.#holds++;
          this.#wakeAt(first.since + this.#maxWaitMs);
          return;
        }
        const wait = await this.#take();
        if (this.#closed) return;
        if (wait > 0) {
          this.#holds++;
          this.#wakeAt(Math.min(this.#now() + wait, first.since + this.#maxWaitMs));
          return;
        }
        this.#next();
        // The socket may have closed while the rate was asked.
        if (first.settled || first.socket.destroyed) {
          this.#settle(first, undefined);
          continue;
        }
        if (this.#holds > first.holdsBefore) this.waited++;
        if (this.#maxInFlight === 0) this.#counted();
        this.#settle(first, this.#maxInFlight > 0 ? this.#slot(first.socket) : NO_SLOT);
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Takes one admission from the rate: 0 when taken, otherwise the milliseconds before the next. */
  async #take(): Promise<number> {
    if (!this.#limiter) return 0;
    try {
      await this.#limiter.consume('devices');
      return 0;
    } catch (res: unknown) {
      // Anything else is the limiter's own failure: asked again in a second, the queue left as it is
      // (the drain runs detached from any upgrade, so a throw here would be an unhandled rejection).
      return res instanceof RateLimiterRes ? Math.max(1, res.msBeforeNext) : 1_000;
    }
  }

  #settle(entry: Waiting, slot: LoginSlot | undefined): void {
    if (entry.settled) return;
    entry.settled = true;
    this.#live--;
    entry.socket.off('close', entry.onClose);
    entry.resolve(slot);
  }

  /**
   * At shutdown: every waiting upgrade's socket is closed (its device reconnects as from any socket the
   * node closes, not at a return minutes away), and the queue's timer stopped.
   */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    for (const entry of this.#waiting.slice(this.#head)) {
      this.#settle(entry, undefined);
      entry.socket.destroy();
    }
    this.#waiting = [];
    this.#head = 0;
  }

  #next(): void {
    this.#head++;
    if (this.#head === this.#waiting.length) {
      this.#waiting = [];
      this.#head = 0;
    } else if (this.#head >= 1_024 && this.#head * 2 >= this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
  }

  /** One timer for the whole queue, at the earliest moment something can change without a release. */
  #wakeAt(at: number): void {
    if (this.#timer && this.#timerAt <= at) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      void this.#drain();
    }, Math.max(1, Math.ceil(at - this.#now())));
    this.#timer.unref();
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
      this.#counted();
      if (this.waiting > 0) void this.#drain();
    };
    socket.once('close', release);
    // A device that connects and never logs in gives its place back anyway.
    const timer = setTimeout(release, LOGIN_SLOT_MS);
    timer.unref();
    return { release };
  }

  /**
   * Counts a login through the gate towards the pace: a place given back (a login answered, mostly), or
   * without a bound on logins in flight an admission. A window in which the gate was full updates it:
   * short windows, since a storm arrives within a second or two and its returns are given meanwhile.
   */
  #counted(): void {
    this.#granted++;
    const now = this.#now();
    const elapsed = now - this.#windowStart;
    if (elapsed < PACE_WINDOW_MS) return;
    // Only a full gate measures the node: otherwise admissions are as few as arrivals. A window much
    // longer than it should be was mostly quiet, whatever happened at its start.
    const full = this.#holds > this.#holdsAtWindowStart || this.refused > this.#refusedAtWindowStart;
    if (full && elapsed < 4 * PACE_WINDOW_MS) {
      const measured = (this.#granted * 1_000) / elapsed;
      this.#pace = Math.max(1, (this.#pace + measured) / 2);
    }
    this.#granted = 0;
    this.#windowStart = now;
    this.#holdsAtWindowStart = this.#holds;
    this.#refusedAtWindowStart = this.refused;
  }

  /**
   * A refused device's return, at least `soonestMs` away: the next free one at this node's pace, so a storm
   * comes back spread over the time the node needs for it instead of all again at its first backoff.
   */
  #returnFor(soonestMs: number): number {
    const now = this.#now();
    const at = Math.max(this.#nextReturn, now + soonestMs);
    // Booked further ahead than a device honours: spread over the whole window instead of all at its end
    // (a second storm then), and nothing booked that nobody will use.
    if (at - now > MAX_RETRY_AFTER_MS) return soonestMs + Math.random() * (MAX_RETRY_AFTER_MS - soonestMs);
    this.#nextReturn = at + 1_000 / this.#pace;
    return at - now;
  }

  #turnAway(socket: Duplex, soonestMs: number): undefined {
    this.refused++;
    // Whole milliseconds first: (now + 1000) - now is not always 1000 in floating point.
    const retryAfter = Math.max(1, Math.ceil(Math.round(this.#returnFor(soonestMs)) / 1_000));
    socket.end(`HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${retryAfter}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    return undefined;
  }
}
