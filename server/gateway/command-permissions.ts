import { COMMAND_PERMISSIONS } from '../../protocol/index.ts';

/**
 * The permission key a console needs to send each device command: the protocol catalogue's one map
 * (`COMMAND_RIGHTS` in protocol/catalogue/command-map.ts, devices-and-commerce section 6), which the console
 * reads too. A command not listed there is refused with result 3.
 */
export const commandPermissions: ReadonlyMap<number, string> = COMMAND_PERMISSIONS;
