import { useSyncExternalStore } from 'react';
import { useSnapshot } from 'valtio';
import type { ConnectionState } from '../../protocol/index.ts';
import { realtimeState } from '../realtime/realtime.ts';
import { presence } from './presence.ts';

const subscribeAny = (listener: () => void) => presence.subscribeAny(listener);

/** The live online state of one device, or `loaded` (what the page read) until the gateway says otherwise. */
export function useOnlineState(sn: string, loaded: number): number {
  return useSyncExternalStore(
    (listener) => presence.subscribe(sn, listener),
    () => presence.get(sn) ?? loaded,
  );
}

/** Every live online state heard, by serial (for pages that count or filter many devices at once). */
export function useLivePresence(): Readonly<Record<string, number>> {
  return useSyncExternalStore(subscribeAny, () => presence.all());
}

/** The number of times the console socket has opened; a page keys its loading on it. */
export function usePresenceEpoch(): number {
  return useSyncExternalStore(subscribeAny, () => presence.epoch);
}

/** Moves whenever presence changes (once per frame at most); pages that recount key an effect on it. */
export function usePresenceChanges(): number {
  return useSyncExternalStore(subscribeAny, () => presence.changes);
}

/** The console socket's state, for indicators. */
export function useRealtimeStatus(): ConnectionState['status'] {
  return useSnapshot(realtimeState).status;
}

/** True while the console socket is open; device requests made before then fail at once. */
export function useRealtimeOpen(): boolean {
  return useRealtimeStatus() === 'open';
}
