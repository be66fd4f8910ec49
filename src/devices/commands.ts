import { filter, lastValueFrom, type Observable } from 'rxjs';
import { proxy } from 'valtio';
import { type Command, type DeviceFileEvent, type Envelope, fileFromDevice, type FinalReply, isFinal, type OfferCommand, OnlineState, type SendOf, Result, uploadToDevice } from '../../protocol/index.ts';
import { deviceOpsApi } from '../api/device-ops.ts';
import { TOAST_MS } from '../api/request.ts';
import { currentLanguage, i18next } from '../i18n/index.ts';
import { notifications } from '../layout/toast.ts';
import { engine } from '../realtime/realtime.ts';
import { type CommandTarget, createCommandSender } from './command-sender.ts';

export type { CommandTarget, SendOptions, SendOutcome } from './command-sender.ts';

/** Commands that move files wait longer than a plain command: the device replies once the bytes are in. */
const TRANSFER_TIMEOUT_MS = 300_000;

/** Bumped when a command is held for an offline device, so lists of held commands reload. */
export const heldChanged = proxy({ n: 0 });

/** Sends one command to a device through the worker engine and resolves with its final reply, data decoded (no guard, no toast). */
export async function askDevice<K extends number>(msgId: K, sn: string, data?: SendOf<K>, flowId?: string): Promise<FinalReply<K>> {
  return (await lastValueFrom(engine().request(msgId, { sn, data, flowId }).pipe(filter(isFinal)))).reply;
}

const sender = createCommandSender({
  request: askDevice,
  hold: (sn, msgId, data, ttlSeconds) => deviceOpsApi.command(sn, msgId, data, ttlSeconds),
  toast: (color, message) => notifications.show({ color, message, autoClose: TOAST_MS }),
  t: (key, params) => (params ? i18next.t(key, params) : i18next.t(key)),
  language: () => currentLanguage,
  onHeld: () => heldChanged.n++,
});

/**
 * Sends a command to a device from a click, with the click guard, the refusals said without a round trip,
 * the hold for offline devices and one toast with the outcome (see `createCommandSender`).
 */
export const { sendCommand, refusedBeforeSending, clickAllowed, resultText, replyMessage, commandLabel } = sender;

/** The device as the device view knows it (online, Linux or not), as `sendCommand` takes it. */
export function viewTarget(sn: string, online: boolean, linux: boolean): CommandTarget {
  return { sn, onlineState: online ? OnlineState.Online : OnlineState.Offline, systemType: linux ? 'linux' : 'android' };
}

/** Shows a reply's outcome as a toast in the device view's words; true on success. */
export function toastReply(reply: Pick<Envelope, 'msgId' | 'result' | 'data'>): boolean {
  sender.tell('view', reply.msgId, '', reply);
  return reply.result === Result.Success;
}

/** Shows a failure that never reached the device (the socket is down, the request timed out). */
export function toastError(err: unknown): void {
  notifications.show({ color: 'red', message: err instanceof Error ? err.message : String(err), autoClose: TOAST_MS });
}

/** Sends without a click: nothing is said on success, a failure is toasted (live control input, stop stream). */
export function sendQuietly<K extends number>(msgId: K, sn: string, data?: SendOf<K>): void {
  engine()
    .request(msgId, { sn, data })
    .subscribe({
      next: (e) => {
        if (e.kind === 'result' && e.reply.result !== Result.Success) toastError(new Error(resultText(e.reply.result, e.reply.data)));
      },
      error: toastError,
    });
}

/** Uploads a file into a device folder with progress. */
export function uploadFile(sn: string, dir: string, name: string, bytes: Uint8Array): Observable<DeviceFileEvent<typeof Command.FileUpload>> {
  return uploadToDevice(engine(), { sn, dir, name, bytes, timeoutMs: TRANSFER_TIMEOUT_MS });
}

/** Fetches a file the device sends on a flow (download, screenshot, log) with progress. */
export function deviceFile<K extends OfferCommand>(sn: string, msgId: K, data?: SendOf<K>): Observable<DeviceFileEvent<K>> {
  return fileFromDevice(engine(), { sn, msgId, data, timeoutMs: TRANSFER_TIMEOUT_MS });
}
