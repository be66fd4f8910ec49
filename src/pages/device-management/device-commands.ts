import { notifications } from '../../layout/toast.ts';
import { Command, type Envelope, OnlineState, refusedOnSystem, Result, type ResultCode } from '../../../protocol/index.ts';
import { TOAST_MS } from '../../api/request.ts';
import { i18next } from '../../i18n/index.ts';
import { resultText, sendDeviceCommand } from '../../realtime/commands.ts';
import { ClickGuard } from './click-guard.ts';

/** One guard for the whole console, so the list and remote management share it. */
export const clickGuard = new ClickGuard();

/** Why the console refuses a command before sending it, or undefined when it may be sent. */
export function refusal(msgId: number, device: { systemType: string; onlineState: number }): string | undefined {
  if (refusedOnSystem(msgId, device.systemType)) return i18next.t('fleet.msg.linux');
  if (device.onlineState !== OnlineState.Online) return i18next.t('fleet.msg.offline');
  return undefined;
}

/** The label of a command as the console's actions name it. */
export function commandLabel(msgId: number): string {
  const key: Partial<Record<number, string>> = {
    [Command.Reboot]: 'fleet.action.reboot',
    [Command.FactoryReset]: 'fleet.action.reset',
    [Command.ClearData]: 'fleet.action.clear',
    [Command.PushText]: 'fleet.action.message',
    [Command.Whitelist]: 'fleet.action.whitelist',
    [Command.StartStream]: 'fleet.action.liveView',
  };
  return i18next.t(key[msgId] ?? String(msgId));
}

function toast(ok: boolean, message: string): void {
  notifications.show({ color: ok ? 'green' : 'red', message, autoClose: TOAST_MS });
}

/** Tells the user a refusal or result for one device, in the list's format ('Reboot on SN: Success'). */
export function announce(msgId: number, sn: string, result: ResultCode | undefined, text: string): void {
  toast(result === Result.Success, i18next.t('fleet.msg.result', { command: commandLabel(msgId), sn, result: text }));
}

/**
 * Sends one command to one device from a click: refuses repeated clicks, then sends through the worker
 * engine and announces the outcome. `check` refuses Linux-unsupported actions and offline devices
 * before sending (destructive commands skip it so the gateway's own answer shows).
 */
export async function runGuarded(msgId: number, device: { sn: string; systemType: string; onlineState: number }, data?: unknown, check = true): Promise<Envelope | undefined> {
  if (!clickGuard.allow(`${msgId}:${device.sn}`)) {
    toast(false, i18next.t('fleet.msg.tooFrequent'));
    return undefined;
  }
  const refused = check ? refusal(msgId, device) : refusedOnSystem(msgId, device.systemType) ? i18next.t('fleet.msg.linux') : undefined;
  if (refused) {
    announce(msgId, device.sn, Result.Fail, refused);
    return undefined;
  }
  try {
    const reply = await sendDeviceCommand(msgId, device.sn, data);
    announce(msgId, device.sn, reply.result, resultText(reply.result, reply.data));
    return reply;
  } catch (err) {
    toast(false, err instanceof Error ? err.message : String(err));
    return undefined;
  }
}
