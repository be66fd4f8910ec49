import { Command, commandPermission, refusedOnSystem, wipesDevice } from '../../../protocol/index.ts';
import type { Tab } from '../device-view/tab-access.ts';

/** What a device row offers (devices-and-commerce section 6, device actions). */
export type RowAction =
  | 'remark'
  | 'allocate'
  | 'country'
  | 'message'
  | 'reboot'
  | 'clear'
  | 'reset'
  | 'liveView'
  | 'baseInfo'
  | 'systemInfo'
  | 'runtimeInfo'
  | 'liveControl'
  | 'ssh'
  | 'capture'
  | 'files'
  | 'shell';

/** Actions that open the device view, on this tab. */
export const ROW_ACTION_TAB: Readonly<Partial<Record<RowAction, Tab>>> = {
  baseInfo: 'base',
  systemInfo: 'system',
  runtimeInfo: 'runtime',
  liveControl: 'remote',
  files: 'files',
  shell: 'shell',
};

/**
 * The device command behind each action that talks to the device: the list refuses it before acting
 * when the device is offline or is a Linux device that cannot do it (src/devices/commands.ts `refusedBeforeSending`).
 * Remark, allocate and country are server edits and work on offline devices.
 */
export const ROW_ACTION_COMMAND: Readonly<Partial<Record<RowAction, number>>> = {
  message: Command.PushText,
  reboot: Command.Reboot,
  clear: Command.ClearData,
  reset: Command.FactoryReset,
  liveView: Command.StartStream,
  baseInfo: Command.BaseInfo,
  systemInfo: Command.SystemInfo,
  runtimeInfo: Command.RuntimeQuery,
  liveControl: Command.RemoteControl,
  ssh: Command.ChangeSshConfig,
  capture: Command.Screenshot,
  files: Command.FileList,
  shell: Command.Shell,
};

/** The server edits a row offers (not device commands) and the permission key each needs. */
const EDIT_KEY = { remark: 'device_remark', allocate: 'device_allocate', country: 'device_country' } as const;

/**
 * The permission key each action needs; the row shows an action only to a user holding its key. An
 * action that sends a command needs that command's key from the protocol catalogue (`COMMAND_RIGHTS`).
 */
export const ROW_ACTION_KEY: Readonly<Record<RowAction, string>> = Object.fromEntries(
  (Object.keys(EDIT_KEY) as (keyof typeof EDIT_KEY)[])
    .map((action): [RowAction, string] => [action, EDIT_KEY[action]])
    .concat(Object.entries(ROW_ACTION_COMMAND).map(([action, msgId]): [RowAction, string] => [action as RowAction, commandKey(msgId)])),
) as Record<RowAction, string>;

function commandKey(msgId: number | undefined): string {
  const key = msgId === undefined ? undefined : commandPermission(msgId);
  if (key === undefined) throw new Error(`command ${String(msgId)} has no permission key in the catalogue`);
  return key;
}

/** The "more" menu's actions in the order they show; destructive ones last. Reboot and live view are buttons on the row. */
export const MENU_ACTIONS: readonly RowAction[] = [
  'baseInfo',
  'systemInfo',
  'runtimeInfo',
  'liveControl',
  'files',
  'shell',
  'ssh',
  'capture',
  'remark',
  'allocate',
  'country',
  'message',
  'clear',
  'reset',
];

/**
 * Keys an action needs besides its own: live control drives the live picture, so without the live view
 * key (the remote tab then shows no picture) it is not offered.
 */
export const ROW_ACTION_ALSO: Readonly<Partial<Record<RowAction, readonly string[]>>> = {
  liveControl: ['device_live_view'],
};

/** Menu actions shown in red: their command wipes the device in the catalogue (clear data, factory reset). */
export const DANGEROUS_ACTIONS: ReadonlySet<RowAction> = new Set<RowAction>(MENU_ACTIONS.filter((action) => wipesDevice(ROW_ACTION_COMMAND[action] ?? 0)));

/**
 * The menu actions a user may take, given the console's permission check, on a device of `systemType`:
 * what that system refuses (`refusedOnSystem`, e.g. clear data on Linux) is not offered at all.
 */
export function menuActions(can: (key: string) => boolean, systemType?: string): RowAction[] {
  return MENU_ACTIONS.filter((action) => {
    const command = ROW_ACTION_COMMAND[action];
    if (systemType !== undefined && command !== undefined && refusedOnSystem(command, systemType)) return false;
    return can(ROW_ACTION_KEY[action]) && (ROW_ACTION_ALSO[action] ?? []).every(can);
  });
}
