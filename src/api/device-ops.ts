import { notifications } from '../layout/toast.ts';
import { lastValueFrom, type Observable } from 'rxjs';
import { type DeviceFileEvent, type Envelope, fileFromDevice, LINUX_CANNOT, Result, uploadToDevice } from '../../protocol/index.ts';
import { i18next } from '../i18n/index.ts';
import { resultText } from '../realtime/commands.ts';
import { engine } from '../realtime/realtime.ts';
import { request, TOAST_MS } from './request.ts';

/** Commands that move files wait longer than a plain command: the device replies once the bytes are in. */
const TRANSFER_TIMEOUT_MS = 300_000;

/** Sends one command to a device through the realtime engine and resolves with its final reply. */
export async function askDevice(msgId: number, sn: string, data?: unknown, flowId?: string): Promise<Envelope> {
  return (await lastValueFrom(engine().request(msgId, { sn, data, flowId }))).reply;
}

/** A device reply in the spec's words: offline and Linux refusals get the spec's messages. */
export function replyMessage(reply: Envelope): string {
  const message = (reply.data as { message?: unknown } | undefined)?.message;
  if (reply.result === Result.DeviceOffline) return i18next.t('deviceView.offline');
  if (message === LINUX_CANNOT) return i18next.t('deviceView.linuxCannot');
  return resultText(reply.result, reply.data);
}

/** Shows a reply's outcome as a toast; resolves true on success. */
export function toastReply(reply: Envelope): boolean {
  const ok = reply.result === Result.Success;
  const message = (reply.data as { message?: unknown } | undefined)?.message;
  notifications.show({
    color: ok ? 'green' : 'red',
    message: ok ? i18next.t('deviceView.done', { message: typeof message === 'string' ? message : resultText(reply.result) }) : replyMessage(reply),
    autoClose: TOAST_MS,
  });
  return ok;
}

export function toastError(err: unknown): void {
  notifications.show({ color: 'red', message: err instanceof Error ? err.message : String(err), autoClose: TOAST_MS });
}

/** A repeated click on the same command within this window is refused (devices-and-commerce section 8). */
export const CLICK_GUARD_MS = 1_000;
const lastClicks = new Map<string, number>();

/** False (and the spec's 'You click too frequently！') when the same command was clicked a moment ago. */
export function clickAllowed(key: string, now = Date.now()): boolean {
  const last = lastClicks.get(key);
  if (last !== undefined && now - last < CLICK_GUARD_MS) {
    notifications.show({ color: 'orange', message: i18next.t('deviceView.tooFrequent'), autoClose: TOAST_MS });
    return false;
  }
  lastClicks.set(key, now);
  return true;
}

/** Uploads a file into a device folder with progress. */
export function uploadFile(sn: string, dir: string, name: string, bytes: Uint8Array): Observable<DeviceFileEvent> {
  return uploadToDevice(engine(), { sn, dir, name, bytes, timeoutMs: TRANSFER_TIMEOUT_MS });
}

/** Fetches a file the device sends on a flow (download, screenshot, log) with progress. */
export function deviceFile(sn: string, msgId: number, data?: unknown): Observable<DeviceFileEvent> {
  return fileFromDevice(engine(), { sn, msgId, data, timeoutMs: TRANSFER_TIMEOUT_MS });
}

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
