import { Command } from '../../protocol/index.ts';

/** The permission key a console needs to send each device command. A command not listed here is refused. */
export const commandPermissions: ReadonlyMap<number, string> = new Map([
  [Command.Reboot, 'device_reboot'],
  // Reading a device's base information is part of viewing the device.
  [Command.BaseInfo, 'device_list'],
]);
