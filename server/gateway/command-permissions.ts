import { COMMAND_PERMISSIONS } from '../../protocol/index.ts';

/**
 * The permission key a console needs to send each device command: the protocol catalogue's one map
 * (`COMMAND_RIGHTS`, devices-and-commerce section 6). A command not listed there is refused with result 3.
 */
const permissions = new Map<number, string>(COMMAND_PERMISSIONS);

export const commandPermissions: ReadonlyMap<number, string> = permissions;

/** Lets another area make one more command available to consoles under a permission key. */
export function registerCommandPermission(msgId: number, permission: string): void {
  const existing = permissions.get(msgId);
  if (existing !== undefined && existing !== permission) throw new Error(`command ${msgId} already needs ${existing}`);
  permissions.set(msgId, permission);
}
