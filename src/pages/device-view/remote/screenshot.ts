import { lastValueFrom } from 'rxjs';
import { Command, Result } from '../../../../protocol/index.ts';
import { clickAllowed, deviceFile, toastError, toastReply } from '../../../devices/commands.ts';

/**
 * Takes one screenshot of a device (65564) and resolves to an object URL of the picture, which the
 * caller revokes. Resolves undefined when the device is offline, the click repeats, or the device
 * refuses; each of those has been told to the user already. The remote tab and the list's capture
 * action both take screenshots through here.
 */
export async function captureScreenshot(sn: string, online: boolean): Promise<string | undefined> {
  if (!online) {
    toastReply({ msgId: Command.Screenshot, result: Result.DeviceOffline });
    return undefined;
  }
  if (!clickAllowed(`shot:${sn}`)) return undefined;
  try {
    const done = await lastValueFrom(deviceFile(sn, Command.Screenshot));
    if (done.kind === 'done' && done.file) return URL.createObjectURL(new Blob([done.file.bytes.slice().buffer], { type: done.file.mime }));
    if (done.kind === 'done') toastReply(done.reply);
  } catch (err) {
    toastError(err);
  }
  return undefined;
}
