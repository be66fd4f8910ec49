import { Command, decodeRequest, type Envelope, OnlineState } from '../../protocol/index.ts';

/** Runs `publish` once, soon: on the next animation frame while the page is shown, else on the next task. */
export type Schedule = (publish: () => void) => void;

const nextFrame: Schedule = (publish) => {
  const shown = typeof document === 'undefined' || document.visibilityState !== 'hidden';
  if (shown && typeof requestAnimationFrame === 'function') requestAnimationFrame(publish);
  else setTimeout(publish, 0);
};

/**
 * The console's one store of live online states, by serial, as the gateway pushes them (DevicePresence,
 * 196609); a state heard here overrides what a page loaded. Presence arrives from the worker engine in
 * batches; changes are coalesced and published once per animation frame, and a row subscribes to its own
 * serial, so a storm of 2,000 changes a second re-renders only the visible rows that changed.
 *
 * `epoch` counts the socket's openings: the gateway sends no snapshot, so what was heard before the socket
 * went down may be stale, and every page that loaded rows before the latest opening loads them again.
 */
export class PresenceStore {
  readonly #state = new Map<string, number>();
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #pending = new Set<string>();
  readonly #anyListeners = new Set<() => void>();
  readonly #schedule: Schedule;
  #scheduled = false;
  #epoch = 0;
  #changes = 0;
  #snapshot: Readonly<Record<string, number>> | undefined;
  /** Presence changes applied since the page loaded (bench/ui.bench.ts reads it). */
  applied = 0;

  constructor(schedule: Schedule = nextFrame) {
    this.#schedule = schedule;
  }

  /** Applies a batch of incoming messages; only presence messages matter here. */
  apply(batch: readonly Envelope[]): void {
    for (const env of batch) {
      if (env.msgId !== Command.DevicePresence || !env.sn) continue;
      const state = decodeRequest(Command.DevicePresence, env.data)?.data.onlineState;
      if (state !== OnlineState.Online && state !== OnlineState.Offline) continue;
      this.#state.set(env.sn, state);
      this.#pending.add(env.sn);
      this.applied++;
    }
    if (this.#pending.size > 0 && !this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(() => this.#publish());
    }
  }

  /** The socket (re)opened: forget every heard state (changes may have been missed) and move the epoch. */
  reopened(): void {
    const heard = [...this.#state.keys()];
    this.#state.clear();
    this.#pending.clear();
    this.#snapshot = undefined;
    this.#epoch++;
    for (const sn of heard) for (const listener of this.#listeners.get(sn) ?? []) listener();
    for (const listener of this.#anyListeners) listener();
  }

  #publish(): void {
    this.#scheduled = false;
    if (this.#pending.size === 0) return;
    this.#changes += this.#pending.size;
    this.#snapshot = undefined;
    const changed = [...this.#pending];
    this.#pending.clear();
    for (const sn of changed) for (const listener of this.#listeners.get(sn) ?? []) listener();
    for (const listener of this.#anyListeners) listener();
  }

  /** The live state of one device, or undefined when none was heard since the socket opened. */
  get(sn: string): number | undefined {
    return this.#state.get(sn);
  }

  /** Every heard state, as one object that stays the same until the next published change. */
  all(): Readonly<Record<string, number>> {
    return (this.#snapshot ??= Object.fromEntries(this.#state));
  }

  /** The number of times the console socket has opened. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Published presence changes since the page loaded (pages recount on it). */
  get changes(): number {
    return this.#changes;
  }

  /** Hears changes of one serial, once per frame at most, and the socket's reopening. */
  subscribe(sn: string, listener: () => void): () => void {
    let set = this.#listeners.get(sn);
    if (!set) this.#listeners.set(sn, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(sn);
    };
  }

  /** Hears that some states changed (once per frame at most) or that the socket reopened. */
  subscribeAny(listener: () => void): () => void {
    this.#anyListeners.add(listener);
    return () => this.#anyListeners.delete(listener);
  }
}

/** The console's presence store, fed by the realtime engine (src/realtime/realtime.ts). */
export const presence = new PresenceStore();
// Read by bench/ui.bench.ts to check that the presence storm it drives actually reached the page.
(globalThis as { __dccLiveStates?: { readonly applied: number } }).__dccLiveStates = presence;
