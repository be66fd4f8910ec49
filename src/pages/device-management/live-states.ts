import { useSyncExternalStore } from 'react';
import type { Subscription } from 'rxjs';
import { Command, type Envelope, OnlineState } from '../../../protocol/index.ts';
import { engine } from '../../realtime/realtime.ts';

/**
 * Live online state by serial for lists of thousands of devices. Presence arrives from the worker engine
 * in batches; changes are coalesced and published once per animation frame, and each row subscribes to
 * its own serial, so a storm of 2,000 changes a second re-renders only the visible rows that changed.
 */
class LiveStates {
  readonly #state = new Map<string, number>();
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #pending = new Set<string>();
  readonly #anyListeners = new Set<() => void>();
  #frame = 0;
  #subscription: Subscription | undefined;
  /** Presence changes applied since the page loaded (the benchmark reads it). */
  applied = 0;

  /** Starts listening to the worker engine (idempotent). */
  attach(): void {
    if (this.#subscription) return;
    this.#subscription = engine().batches$.subscribe((batch) => this.apply(batch));
  }

  /** Applies a batch of incoming messages; only presence messages matter here. */
  apply(batch: readonly Envelope[]): void {
    for (const env of batch) {
      if (env.msgId !== Command.DevicePresence || !env.sn) continue;
      const state = (env.data as { onlineState?: unknown } | undefined)?.onlineState;
      if (state !== OnlineState.Online && state !== OnlineState.Offline) continue;
      this.#state.set(env.sn, state);
      this.#pending.add(env.sn);
      this.applied++;
    }
    if (this.#pending.size > 0 && this.#frame === 0) this.#frame = requestAnimationFrame(() => this.#publish());
  }

  /** Forgets every heard state (the socket reopened, changes may have been missed); rows show what they load next. */
  reset(): void {
    const heard = [...this.#state.keys()];
    this.#state.clear();
    for (const sn of heard) for (const listener of this.#listeners.get(sn) ?? []) listener();
    for (const listener of this.#anyListeners) listener();
  }

  #publish(): void {
    this.#frame = 0;
    for (const sn of this.#pending) for (const listener of this.#listeners.get(sn) ?? []) listener();
    this.#pending.clear();
    for (const listener of this.#anyListeners) listener();
  }

  get(sn: string): number | undefined {
    return this.#state.get(sn);
  }

  subscribe(sn: string, listener: () => void): () => void {
    let set = this.#listeners.get(sn);
    if (!set) this.#listeners.set(sn, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(sn);
    };
  }

  /** Hears that some states changed, once per frame at most. */
  subscribeAny(listener: () => void): () => void {
    this.#anyListeners.add(listener);
    return () => this.#anyListeners.delete(listener);
  }
}

export const liveStates = new LiveStates();
// Read by bench/ui.bench.ts to check that the presence storm it drives actually reached the page.
(globalThis as { __dccLiveStates?: { readonly applied: number } }).__dccLiveStates = liveStates;

/** The live online state of one device, or `loaded` until the gateway says otherwise. */
export function useLiveOnlineState(sn: string, loaded: number): number {
  return useSyncExternalStore(
    (listener) => liveStates.subscribe(sn, listener),
    () => liveStates.get(sn) ?? loaded,
  );
}
