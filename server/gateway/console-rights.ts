import { CloseCode, type Clock, type TimerHandle } from '../../protocol/index.ts';
import type { Caller, LoadedCaller } from '../accounts/caller.ts';
import type { RightsChange } from '../accounts/rights-bus.ts';
import type { Session } from '../auth/sessions.ts';
import { sessionBudget, type TokenBucket } from './command-limits.ts';

/** A console socket holding a session's rights. */
export interface RightsHolder {
  /** Closes the socket (the session ended, expired, or its account or organisation can no longer log in). */
  close(code: number, reason: string): void;
  /** The rights were reloaded and lost something: what was granted under the old ones is let go. */
  narrowed(before: Caller, after: Caller): void;
}

/**
 * The rights of one session as this process holds them for its console sockets, loaded once and shared
 * by every socket of the session here. A change that may touch them (rightsChanged on the bus) makes them
 * stale at once; they are reloaded right away, and a command that arrives meanwhile waits for the reload.
 */
export class SessionRights {
  #caller: LoadedCaller;
  readonly holders = new Set<RightsHolder>();
  /** Commands this session may still send (undefined: no limit). */
  readonly budget: TokenBucket | undefined;
  /** Bumped by every change that touches the session; `#loaded` is the generation `#caller` is current for. */
  #generation = 0;
  #loaded = 0;
  #reloading: Promise<Caller | undefined> | undefined;
  #ended = false;
  #expiry: TimerHandle | undefined;

  constructor(caller: LoadedCaller, budget: TokenBucket | undefined) {
    this.#caller = caller;
    this.budget = budget;
  }

  get caller(): LoadedCaller {
    return this.#caller;
  }

  get session(): Session {
    return this.#caller.session;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** True when no change reached this session since its rights were loaded. */
  get fresh(): boolean {
    return this.#loaded === this.#generation;
  }

  /** @internal ConsoleRights's bookkeeping. */
  markStale(): void {
    this.#generation++;
  }

  /** @internal */
  reload(load: (session: Session) => Promise<LoadedCaller | undefined>, ended: (rights: SessionRights) => void): Promise<Caller | undefined> {
    this.#reloading ??= (async () => {
      // Loops until a load that started after the latest change completes: a read begun before a change
      // was committed may not see it.
      for (;;) {
        const generation = this.#generation;
        const caller = await load(this.session);
        if (this.#ended) return undefined;
        if (!caller) {
          ended(this);
          return undefined;
        }
        const before = this.#caller;
        this.#caller = caller;
        if (narrowed(before, caller)) for (const holder of [...this.holders]) holder.narrowed(before, caller);
        if (generation === this.#generation) {
          this.#loaded = generation;
          return caller;
        }
      }
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  /** @internal */
  end(): void {
    this.#ended = true;
  }

  /** @internal */
  set expiry(handle: TimerHandle | undefined) {
    this.#expiry = handle;
  }

  get expiry(): TimerHandle | undefined {
    return this.#expiry;
  }
}

/** True when `after` grants less than `before`: a key or an organisation of the scope is gone. */
export function narrowed(before: Caller, after: Caller): boolean {
  for (const key of before.permissions) if (!after.permissions.has(key)) return true;
  if (after.scopeCoversAll) return false;
  for (const id of before.scope) if (!after.scope.has(id)) return true;
  return false;
}

/** True when `change` may touch the rights of `caller`. */
export function touches(change: RightsChange, caller: LoadedCaller): boolean {
  if (change.all) return true;
  if (change.accounts?.includes(caller.accountId)) return true;
  if (change.roles?.includes(caller.roleId)) return true;
  // Below or at the caller's organisation: its scope may grow or shrink. Above it: a freeze reaches it.
  return change.orgs?.some((id) => caller.scope.has(id) || caller.orgPath.includes(id)) ?? false;
}

export interface ConsoleRightsDeps {
  readonly load: (session: Session) => Promise<LoadedCaller | undefined>;
  readonly clock: Clock;
  /** Per-session command budget (0: no limit). */
  readonly commandRate: number;
  readonly commandBurst: number;
  readonly log: { warn(obj: object, msg: string): void };
}

// Timers longer than this overflow Node's 32-bit delay; a longer session is checked again at this point.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The rights of every session with a console socket in this process, by session. Commands are checked
 * against them one by one; rightsChanged (server/accounts/rights-bus.ts) makes the touched ones stale, and
 * a session that ended, expired, or whose account or organisation may no longer log in has its sockets
 * closed with 4002 (PROTOCOL.md LIFE-3).
 */
export class ConsoleRights {
  readonly #deps: ConsoleRightsDeps;
  readonly #sessions = new Map<string, SessionRights>();

  constructor(deps: ConsoleRightsDeps) {
    this.#deps = deps;
  }

  /** Sessions with sockets here (tests and diagnostics). */
  get size(): number {
    return this.#sessions.size;
  }

  /** The rights of a session opening a socket: this process's copy when it is current, else loaded now. */
  async open(session: Session): Promise<SessionRights | undefined> {
    const known = this.#sessions.get(session.tokenHash);
    if (known && !known.ended) {
      const caller = known.fresh ? known.caller : await this.#reload(known);
      return caller && !known.ended ? known : undefined;
    }
    const caller = await this.#deps.load(session);
    if (!caller || caller.session.expiresAt <= this.#deps.clock.now()) return undefined;
    // Another socket of the session may have opened while this one loaded.
    const raced = this.#sessions.get(session.tokenHash);
    if (raced && !raced.ended) return raced;
    const rights = new SessionRights(caller, sessionBudget(this.#deps.commandRate, this.#deps.commandBurst, this.#deps.clock.now()));
    this.#sessions.set(session.tokenHash, rights);
    this.#scheduleExpiry(rights);
    return rights;
  }

  /**
   * Adds a socket to a session's holders and returns the rights it is to use: `rights` as open() gave them,
   * or the copy another socket of the session opened meanwhile. Undefined (and the socket closed) when the
   * session ended in between.
   */
  attach(rights: SessionRights, holder: RightsHolder): SessionRights | undefined {
    const key = rights.session.tokenHash;
    const current = this.#sessions.get(key);
    const use = current && !current.ended ? current : rights;
    if (use.ended) {
      holder.close(CloseCode.SessionEnded, 'session ended');
      return undefined;
    }
    use.holders.add(holder);
    if (current === use) return use;
    // Its last socket closed between open() and now, so it was forgotten and may have missed changes:
    // it is taken back and reloaded.
    this.#sessions.set(key, use);
    this.#scheduleExpiry(use);
    use.markStale();
    this.#reload(use).catch((err: unknown) => this.#deps.log.warn({ err }, 'reloading console rights failed'));
    return use;
  }

  /** A socket refused after open(): its rights are forgotten unless another socket of the session holds them. */
  release(rights: SessionRights): void {
    if (rights.holders.size > 0) return;
    if (this.#sessions.get(rights.session.tokenHash) === rights) this.#sessions.delete(rights.session.tokenHash);
    this.#clearExpiry(rights);
  }

  /** A socket closed: the session's rights are forgotten with its last socket here. */
  detach(rights: SessionRights, holder: RightsHolder): void {
    rights.holders.delete(holder);
    if (rights.holders.size > 0) return;
    if (this.#sessions.get(rights.session.tokenHash) === rights) this.#sessions.delete(rights.session.tokenHash);
    this.#clearExpiry(rights);
  }

  /**
   * The session's rights for the command at hand: the caller at once when current, a promise of it while a
   * reload runs, undefined when the session is over (its sockets are being closed).
   */
  check(rights: SessionRights): Caller | Promise<Caller | undefined> | undefined {
    if (rights.ended) return undefined;
    if (rights.session.expiresAt <= this.#deps.clock.now()) {
      this.#end(rights, 'session expired');
      return undefined;
    }
    return rights.fresh ? rights.caller : this.#reload(rights);
  }

  /** Makes every session the change touches stale, synchronously, and starts reloading them. */
  invalidate(change: RightsChange): void {
    for (const rights of this.#sessions.values()) {
      if (rights.ended || !touches(change, rights.caller)) continue;
      rights.markStale();
      // Reloaded at once, not at the next command: a console that only listens must see its new scope
      // (presence of a new organisation's devices, PRES-1) and lose the old one.
      this.#reload(rights).catch((err: unknown) => this.#deps.log.warn({ err }, 'reloading console rights failed'));
    }
  }

  /** Closes every socket of a session that ended elsewhere (logout, kick-out). */
  endSession(tokenHash: string): void {
    const rights = this.#sessions.get(tokenHash);
    if (rights) this.#end(rights, 'session ended');
  }

  /** Forgets everything (gateway shutdown). */
  close(): void {
    for (const rights of this.#sessions.values()) this.#clearExpiry(rights);
    this.#sessions.clear();
  }

  #reload(rights: SessionRights): Promise<Caller | undefined> {
    return rights.reload(this.#deps.load, (r) => this.#end(r, 'session ended'));
  }

  #end(rights: SessionRights, reason: string): void {
    if (rights.ended) return;
    rights.end();
    this.#clearExpiry(rights);
    if (this.#sessions.get(rights.session.tokenHash) === rights) this.#sessions.delete(rights.session.tokenHash);
    for (const holder of [...rights.holders]) holder.close(CloseCode.SessionEnded, reason);
  }

  // An idle socket is closed when its session expires too, not only at its next command.
  #scheduleExpiry(rights: SessionRights): void {
    const wait = rights.session.expiresAt - this.#deps.clock.now();
    rights.expiry = this.#deps.clock.setTimeout(() => {
      rights.expiry = undefined;
      if (rights.session.expiresAt <= this.#deps.clock.now()) this.#end(rights, 'session expired');
      else if (!rights.ended) this.#scheduleExpiry(rights);
    }, Math.min(Math.max(0, wait), MAX_TIMER_MS));
  }

  #clearExpiry(rights: SessionRights): void {
    if (rights.expiry !== undefined) this.#deps.clock.clearTimeout(rights.expiry);
    rights.expiry = undefined;
  }
}
