import { request } from './request.ts';

// Commands to devices over the console socket (ask, send with the click guard and toasts, file transfers)
// are the device layer's: src/devices/commands.ts. This file holds the REST side of device operations.

/** Hands bytes to the browser as a download. */
export function saveBytes(name: string, mime: string, bytes: Uint8Array): void {
  const url = URL.createObjectURL(new Blob([bytes.slice().buffer], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Whitelist input: commas, Chinese commas and spaces all separate names (devices-and-commerce section 5). */
export function parsePackageList(text: string): string[] {
  return [...new Set(text.split(/[,，\s]+/).map((s) => s.trim()).filter(Boolean))];
}

/** A command held for an offline device until it returns (issue 5). */
export interface PendingCommand {
  readonly id: number;
  readonly sn: string;
  readonly msgId: number;
  readonly state: 'waiting' | 'delivering' | 'done' | 'expired' | 'cancelled';
  readonly result: number | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly deliveredAt: number | null;
  readonly finishedAt: number | null;
  readonly reply: unknown;
}

export const deviceOpsApi = {
  /** Sends a command now, or holds it for `ttlSeconds` when the device is offline. */
  command: (sn: string, msgId: number, data: unknown, ttlSeconds?: number) =>
    request<{ delivered: boolean; result: number | null; data?: unknown; pending?: PendingCommand }>({ method: 'POST', url: '/device-ops/command', data: { sn, msgId, data, ttlSeconds } }),
  /** Cancels the whitelist on every Android device of the caller's organisation tree (offline ones when they return). */
  whitelistCancel: (packages: readonly string[]) =>
    request<{ devices: number; delivered: number; held: number }>({ method: 'POST', url: '/device-ops/whitelist-cancel', data: { packages } }),
  pending: (sn: string) => request<{ list: PendingCommand[] }>({ method: 'GET', url: '/device-ops/pending', params: { sn }, silent: true }),
};
