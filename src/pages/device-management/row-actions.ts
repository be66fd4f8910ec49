import { Command } from '../../../protocol/index.ts';
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

/** The permission key each action needs; the row shows an action only to a user holding its key. */
export const ROW_ACTION_KEY: Readonly<Record<RowAction, string>> = {
  remark: 'device_remark',
  allocate: 'device_allocate',
  country: 'device_country',
  message: 'device_message',
  reboot: 'device_reboot',
  clear: 'device_clear',
  reset: 'device_reset',
  liveView: 'device_live_view',
  baseInfo: 'device_base_info',
  systemInfo: 'device_system_info',
  runtimeInfo: 'device_runtime',
  liveControl: 'device_live_control',
  ssh: 'device_ssh',
  capture: 'device_capture',
  files: 'device_file',
  shell: 'device_shell',
};

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
 * when the device is offline or is a Linux device that cannot do it (device-commands.ts `refusal`).
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

/** Menu actions shown in red: they destroy data on the device. */
export const DANGEROUS_ACTIONS: ReadonlySet<RowAction> = new Set<RowAction>(['clear', 'reset']);

/** The menu actions a user may take, given the console's permission check. */
export function menuActions(can: (key: string) => boolean): RowAction[] {
  return MENU_ACTIONS.filter((action) => can(ROW_ACTION_KEY[action]) && (ROW_ACTION_ALSO[action] ?? []).every(can));
}
