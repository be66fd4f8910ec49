import { proxy, useSnapshot } from 'valtio';
import { Command, type ConnectionState, type Envelope, OnlineState } from '../../protocol/index.ts';
import { EngineClient } from '../../workers/engine-client.ts';
import type { BridgePort, FromWorker, ToWorker } from '../../workers/bridge-protocol.ts';

/** Live connection status for the shell's indicator. */
export const realtimeState = proxy<{ status: ConnectionState['status'] }>({ status: 'idle' });

let onRejected: (() => void) | undefined;

/** What to do when the gateway rejects the session (devices-and-commerce section 8: warn, log in again). */
export function whenTokenRejected(handler: () => void): void {
  onRejected = handler;
}

/**
 * Live online state by serial, as pushed by the gateway; overrides what a page loaded. `epoch` counts the
 * socket's openings: the gateway sends no snapshot, so a page that loaded rows before the latest opening
 * may have missed changes and loads them again when it moves (`usePresenceEpoch`).
 */
export const presence = proxy<{ bySn: Record<string, number>; changes: number; epoch: number }>({ bySn: {}, changes: 0, epoch: 0 });

/** The number of times the console socket has opened; a page keys its loading on it. */
export function usePresenceEpoch(): number {
  return useSnapshot(presence).epoch;
}

let client: EngineClient | undefined;

/** The engine running in its worker, created on first use. */
export function engine(): EngineClient {
  if (!client) {
    const worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module' });
    client = new EngineClient(worker as unknown as BridgePort<FromWorker, ToWorker>);
    client.connection$.subscribe((state) => {
      if (state.status === 'open' && realtimeState.status !== 'open') {
        // What was heard before the socket went down may be stale now: pages load again instead.
        presence.bySn = {};
        presence.epoch++;
      }
      realtimeState.status = state.status;
      if (state.status === 'stopped' && state.reason === 'rejected') onRejected?.();
    });
    client.batches$.subscribe(applyBatch);
  }
  return client;
}

function applyBatch(batch: readonly Envelope[]): void {
  let changed = 0;
  for (const env of batch) {
    if (env.msgId !== Command.DevicePresence || !env.sn) continue;
    const state = (env.data as { onlineState?: number } | undefined)?.onlineState;
    if (state === OnlineState.Online || state === OnlineState.Offline) {
      presence.bySn[env.sn] = state;
      changed++;
    }
  }
  if (changed) presence.changes += changed;
}

/** Opens the console socket (/websocket with token, accountId and orgId). */
export function connectRealtime(token: string, accountId: number, orgId: number): void {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const q = new URLSearchParams({ token, accountId: String(accountId), orgId: String(orgId) });
  engine().start(`${scheme}://${window.location.host}/websocket?${q.toString()}`);
}

export function disconnectRealtime(): void {
  client?.stop();
}
