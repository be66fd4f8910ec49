import { notifications } from '../layout/toast.ts';
import { lastValueFrom } from 'rxjs';
import { Command, type Envelope, failureText, labelOf, Result, resultLabels, type ResultCode } from '../../protocol/index.ts';
import { TOAST_MS } from '../api/request.ts';
import { currentLanguage, i18next } from '../i18n/index.ts';
import { engine } from './realtime.ts';

/** Sends a command to one device through the worker engine and resolves with the final reply. */
export async function sendDeviceCommand(msgId: number, sn: string, data?: unknown): Promise<Envelope> {
  const last = await lastValueFrom(engine().request(msgId, { sn, data }));
  return last.reply;
}

const commandKey: Partial<Record<number, string>> = { [Command.Reboot]: 'device.reboot' };

/** Text of a result code in the current language; a failure's own message (by its key when it has one) first. */
export function resultText(result: ResultCode | undefined, data?: unknown): string {
  const serverMessage = result === Result.Success || typeof data !== 'object' || data === null ? undefined : failureText(currentLanguage, data);
  if (serverMessage !== undefined) return serverMessage;
  const label = result === undefined ? undefined : labelOf(resultLabels, result);
  return label ? label[currentLanguage] : String(result);
}

/** Sends a command and tells the user its outcome. */
export async function runDeviceCommand(msgId: number, sn: string, data?: unknown): Promise<ResultCode | undefined> {
  const command = i18next.t(commandKey[msgId] ?? String(msgId));
  try {
    const reply = await sendDeviceCommand(msgId, sn, data);
    notifications.show({
      color: reply.result === Result.Success ? 'green' : 'red',
      message: i18next.t('device.commandResult', { command, sn, result: resultText(reply.result, reply.data) }),
      autoClose: TOAST_MS,
    });
    return reply.result;
  } catch (err) {
    notifications.show({ color: 'red', message: err instanceof Error ? err.message : String(err), autoClose: TOAST_MS });
    return undefined;
  }
}
