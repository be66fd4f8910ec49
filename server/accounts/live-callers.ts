import type { Clock, TimerHandle } from '../../protocol/index.ts';
import type { Session, SessionStore } from '../auth/sessions.ts';
import type { Bus } from '../bus/bus.ts';
import { Subject } from '../bus/subjects.ts';
import type { Db } from '../db/database.ts';
import { touches } from '../gateway/console-rights.ts';
import { type LoadedCaller, loadCaller } from './caller.ts';
import type { RightsChange } from './rights-bus.ts';

/**
 * Long-lived HTTP requests (the push-log stream, a tus upload's PATCH) outlive the guard, which loads the
 * caller once when they arrive. This keeps, per session, every such request open in this process and the
 * caller it is to be judged by now: it ends them when the session ends (logout, kick-out, here or on
 * another node through the bus), when it expires, and when a reload finds the caller can no longer log in
 * (account removed, organisation frozen) or lost the key the request was opened under; on any other change
 * of rights (server/accounts/rights-bus.ts) the caller is reloaded, so each event is checked against the
 * rights of the moment, as console sockets are (server/gateway/console-rights.ts).
 */
export interface LiveRequest {
  /** The caller as last loaded; between a change and its reload, `whenCurrent` is the way to read it. */
  readonly caller: LoadedCaller;
  /** True once ended (by the session or by `close`). */
  readonly ended: boolean;
  /**
   * Runs `use` with the current caller: at once when no change is pending, else after the reload (in the
   * order asked). Dropped when the request ends first.
   */
  whenCurrent(use: (caller: LoadedCaller) => void): void;
  /** The client went away: stop tracking it (the end callback is not called). */
  close(): void;
}

/** Why a live request was ended. */
export type LiveEndReason = 'session ended' | 'session expired' | 'permission lost' | 'server closing' | 'too far behind';

export interface LiveCallersDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly sessions: SessionStore;
  /** Sessions ended on other nodes arrive as Subject.sessionEnded (the gateway publishes this node's). */
  readonly bus: Bus;
  /** Hears every committed change to roles, accounts and organisations (RightsBus.listen). */
  readonly rights: { listen(listener: (change: RightsChange) => void): () => void };
  readonly log: { warn(obj: object, msg: string): void };
}

// Timers longer than this overflow Node's 32-bit delay; a longer session is checked again at this point.
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Uses waiting for a reload; a request that falls further behind is ended (its client reconnects). */
const MAX_PENDING = 10_000;

class Entry implements LiveRequest {
  #caller: LoadedCaller;
  /** The key the request was opened under; undefined for one that needs only a live session. */
  readonly permission: string | undefined;
  readonly #onEnd: (reason: LiveEndReason) => void;
  readonly #forget: (entry: Entry) => void;
  #ended = false;
  /** Bumped by each change that touches the caller; `#loaded` is the generation `#caller` is current for. */
  #generation = 0;
  #loaded = 0;
  #reloading = false;
  readonly #pending: ((caller: LoadedCaller) => void)[] = [];
  expiry: TimerHandle | undefined;

  constructor(caller: LoadedCaller, permission: string | undefined, onEnd: (reason: LiveEndReason) => void, forget: (entry: Entry) => void) {
    this.#caller = caller;
    this.permission = permission;
    this.#onEnd = onEnd;
    this.#forget = forget;
  }

  get caller(): LoadedCaller {
    return this.#caller;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get session(): Session {
    return this.#caller.session;
  }

  whenCurrent(use: (caller: LoadedCaller) => void): void {
    if (this.#ended) return;
    if (this.#loaded === this.#generation && this.#pending.length === 0) return use(this.#caller);
    if (this.#pending.length >= MAX_PENDING) return this.end('too far behind');
    this.#pending.push(use);
  }

  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#pending.length = 0;
    this.#forget(this);
  }

  end(reason: LiveEndReason): void {
    if (this.#ended) return;
    this.close();
    this.#onEnd(reason);
  }

  /** A change may touch the caller: reload it (again, until a load begun after the latest change completes). */
  stale(load: (session: Session) => Promise<LoadedCaller | undefined>, log: LiveCallersDeps['log']): void {
    this.#generation++;
    if (this.#reloading) return;
    this.#reloading = true;
    void (async () => {
      try {
        while (!this.#ended && this.#loaded !== this.#generation) {
          const generation = this.#generation;
          const caller = await load(this.session);
          if (this.#ended) return;
          if (!caller) return this.end('session ended');
          if (this.permission !== undefined && !caller.permissions.has(this.permission)) return this.end('permission lost');
          this.#caller = caller;
          this.#loaded = generation;
        }
        // Current again: what waited is judged by the caller as reloaded.
        while (!this.#ended && this.#loaded === this.#generation && this.#pending.length > 0) this.#pending.shift()?.(this.#caller);
      } catch (err) {
        // The rights cannot be read (database away): nothing is sent on rights nobody could check.
        log.warn({ err }, 'reloading the caller of a live request failed');
        this.end('session ended');
      } finally {
        this.#reloading = false;
      }
    })();
  }
}

/** The live requests of this process, by session; see {@link LiveRequest}. */
export class LiveCallers {
  readonly #deps: LiveCallersDeps;
  readonly #bySession = new Map<string, Set<Entry>>();
  readonly #stop: (() => void)[] = [];

  constructor(deps: LiveCallersDeps) {
    this.#deps = deps;
    const onEnded = ({ tokenHash }: { tokenHash: string }) => this.#endSession(tokenHash, 'session ended');
    deps.sessions.events.on('ended', onEnded);
    this.#stop.push(
      () => deps.sessions.events.off('ended', onEnded),
      // This node's own endings come back too when the bus is shared; ending twice is a no-op.
      deps.bus.subscribe(Subject.sessionEnded, (m) => this.#endSession(m.tokenHash, 'session ended')),
      deps.rights.listen((change) => this.#changed(change)),
    );
  }

  /** Requests open here (tests and diagnostics). */
  get size(): number {
    let n = 0;
    for (const set of this.#bySession.values()) n += set.size;
    return n;
  }

  /**
   * Tracks a long-lived request of `session`, opened under `permission` ('session' for none beyond a live
   * session). The caller is loaded now, so the request starts from the rights of this moment; undefined
   * when it may no longer log in or lacks the key. `onEnd` is called once, when the request is ended here.
   */
  async open(session: Session, permission: string, onEnd: (reason: LiveEndReason) => void): Promise<LiveRequest | undefined> {
    const caller = await this.#load(session);
    if (!caller || (permission !== 'session' && !caller.permissions.has(permission))) return undefined;
    if (caller.session.expiresAt <= this.#deps.clock.now()) return undefined;
    const entry = new Entry(caller, permission === 'session' ? undefined : permission, onEnd, (e) => this.#forget(e));
    let set = this.#bySession.get(session.tokenHash);
    if (!set) {
      set = new Set();
      this.#bySession.set(session.tokenHash, set);
    }
    set.add(entry);
    this.#scheduleExpiry(entry);
    return entry;
  }

  /** Ends every request (the server is closing) and stops listening. */
  close(): void {
    for (const stop of this.#stop.splice(0)) stop();
    for (const set of [...this.#bySession.values()]) for (const entry of [...set]) entry.end('server closing');
  }

  // The session is read again too: one that ended where this process did not hear it is not revived.
  #load = async (session: Session): Promise<LoadedCaller | undefined> => {
    const live = await this.#deps.sessions.byDigest(session.tokenHash);
    return live && live.accountId === session.accountId ? loadCaller(this.#deps.db, live) : undefined;
  };

  #endSession(tokenHash: string, reason: LiveEndReason): void {
    const set = this.#bySession.get(tokenHash);
    if (set) for (const entry of [...set]) entry.end(reason);
  }

  #changed(change: RightsChange): void {
    for (const set of this.#bySession.values()) {
      for (const entry of set) if (!entry.ended && touches(change, entry.caller)) entry.stale(this.#load, this.#deps.log);
    }
  }

  #forget(entry: Entry): void {
    if (entry.expiry !== undefined) this.#deps.clock.clearTimeout(entry.expiry);
    entry.expiry = undefined;
    const set = this.#bySession.get(entry.session.tokenHash);
    if (!set) return;
    set.delete(entry);
    if (set.size === 0) this.#bySession.delete(entry.session.tokenHash);
  }

  #scheduleExpiry(entry: Entry): void {
    const wait = entry.session.expiresAt - this.#deps.clock.now();
    entry.expiry = this.#deps.clock.setTimeout(() => {
      entry.expiry = undefined;
      if (entry.session.expiresAt <= this.#deps.clock.now()) entry.end('session expired');
      else if (!entry.ended) this.#scheduleExpiry(entry);
    }, Math.min(Math.max(0, wait), MAX_TIMER_MS));
  }
}
