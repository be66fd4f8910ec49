import type { DeviceBulkCommandBody, DeviceBulkCommandReply, DeviceCommandBody, DeviceCommandReply, GroupControlBody, GroupControlReply, PendingCommand, PendingCommands, WhitelistCancelBody, WhitelistCancelReply } from '../../protocol/api/device-ops.ts';
import type { RemoteControlRequest } from '../../protocol/index.ts';
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

export type { PendingCommand };

export const deviceOpsApi = {
  /** Sends a command now, or holds it for `ttlSeconds` when the device is offline. */
  command: (sn: string, msgId: number, data: unknown, ttlSeconds?: number) =>
    request<DeviceCommandReply>({ method: 'POST', url: '/device-ops/command', data: { sn, msgId, data, ttlSeconds } satisfies DeviceCommandBody }),
  /** Cancels the whitelist on every Android device of the caller's organisation tree (offline ones when they return). */
  whitelistCancel: (packages: readonly string[]) =>
    request<WhitelistCancelReply>({ method: 'POST', url: '/device-ops/whitelist-cancel', data: { packages: [...packages] } satisfies WhitelistCancelBody }),
  /** One live-control input mirrored to every device of a group; each device's outcome (the wall's group control). */
  groupControl: (sns: readonly string[], input: RemoteControlRequest) =>
    request<GroupControlReply>({ method: 'POST', url: '/device-ops/group-control', data: { sns: [...sns], input } satisfies GroupControlBody }),
  /** One command to many devices over REST (it waits as one four-eyes request when over the organisation's threshold). */
  bulk: (sns: readonly string[], msgId: number, data: unknown) =>
    request<DeviceBulkCommandReply>({ method: 'POST', url: '/device-ops/bulk', data: { sns: [...sns], msgId, data } satisfies DeviceBulkCommandBody }),
  pending: (sn: string) => request<PendingCommands>({ method: 'GET', url: '/device-ops/pending', params: { sn }, silent: true }),
};
