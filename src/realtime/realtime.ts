import { proxy } from 'valtio';
import type { ConnectionState } from '../../protocol/index.ts';
import { presence } from '../devices/presence.ts';
import { EngineClient } from '../../workers/engine-client.ts';
import type { BridgePort, FromWorker, ToWorker } from '../../workers/bridge-protocol.ts';

/** Live connection status for the shell's indicator. */
export const realtimeState = proxy<{ status: ConnectionState['status'] }>({ status: 'idle' });

let onRejected: (() => void) | undefined;

/** What to do when the gateway rejects the session (devices-and-commerce section 8: warn, log in again). */
export function whenTokenRejected(handler: () => void): void {
  onRejected = handler;
}

let client: EngineClient | undefined;

/** The engine running in its worker, created on first use. */
export function engine(): EngineClient {
  if (!client) {
    const worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module' });
    client = new EngineClient(worker as unknown as BridgePort<FromWorker, ToWorker>);
    client.connection$.subscribe((state) => {
      // What was heard before the socket went down may be stale now: pages load again instead.
      if (state.status === 'open' && realtimeState.status !== 'open') presence.reopened();
      realtimeState.status = state.status;
      if (state.status === 'stopped' && state.reason === 'rejected') onRejected?.();
    });
    client.batches$.subscribe((batch) => presence.apply(batch));
  }
  return client;
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
