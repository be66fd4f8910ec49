import { Command } from '../../protocol/index.ts';

/**
 * The permission key a console needs to send each device command (devices-and-commerce section 6).
 * A command not listed here is refused with result 3. Live-view and push commands are registered by
 * their areas with {@link registerCommandPermission}.
 */
const permissions = new Map<number, string>([
  [Command.Reboot, 'device_reboot'],
  [Command.BaseInfo, 'device_base_info'],
  [Command.SystemInfo, 'device_system_info'],
  [Command.RuntimeQuery, 'device_runtime'],
  [Command.Shell, 'device_shell'],
  [Command.ChangeSshConfig, 'device_ssh'],
  [Command.Screenshot, 'device_capture'],
  [Command.GrabLog, 'device_capture'],
  [Command.FileList, 'device_file'],
  [Command.FileUpload, 'device_file'],
  [Command.FileDownload, 'device_file_export'],
  [Command.FileDelete, 'device_file_delete'],
  [Command.PushText, 'device_message'],
  [Command.FactoryReset, 'device_reset'],
  [Command.ClearData, 'device_clear'],
  [Command.ClearCache, 'device_clear'],
  [Command.Whitelist, 'device_whitelist'],
  [Command.Daemon, 'device_app'],
  [Command.OtaList, 'device_system_info'],
  [Command.AppList, 'device_app'],
  [Command.Uninstall, 'device_app'],
]);

export const commandPermissions: ReadonlyMap<number, string> = permissions;

/** Lets another area make one more command available to consoles under a permission key. */
export function registerCommandPermission(msgId: number, permission: string): void {
  const existing = permissions.get(msgId);
  if (existing !== undefined && existing !== permission) throw new Error(`command ${msgId} already needs ${existing}`);
  permissions.set(msgId, permission);
}
