import { Command, commandPermission, refusedOnSystem } from '../../../protocol/index.ts';

/** The device view's tabs (devices-and-commerce section 2), in the order they show. */
export const TABS = ['base', 'system', 'runtime', 'wholeTest', 'remote', 'files', 'config', 'shell', 'whitelist', 'logs', 'timeline'] as const;
export type Tab = (typeof TABS)[number];

/**
 * The commands each tab sends. The whole-test and remote tabs gather several actions, each of which is
 * shown or run only under its own command's key inside the tab.
 */
export const TAB_COMMANDS: Readonly<Record<Tab, readonly number[]>> = {
  base: [Command.BaseInfo],
  system: [Command.SystemInfo],
  runtime: [Command.RuntimeQuery],
  wholeTest: [Command.BaseInfo, Command.SystemInfo, Command.RuntimeQuery, Command.FileList, Command.Screenshot],
  remote: [Command.StartStream, Command.RemoteControl, Command.Reboot, Command.FactoryReset, Command.ClearData, Command.Screenshot, Command.PushText, Command.ChangeSshConfig, Command.AppList, Command.OtaList],
  files: [Command.FileList],
  config: [Command.SystemInfo],
  shell: [Command.Shell],
  whitelist: [Command.Whitelist],
  logs: [Command.GrabLog],
  // The timeline sends no command: it reads POST /device/timeline under the device details key, which is BaseInfo's.
  timeline: [Command.BaseInfo],
};

/**
 * The permission keys that show each tab: the user needs any one of them. They are the keys of the
 * commands the tab sends, from the protocol catalogue's one map (`COMMAND_RIGHTS`, which the gateway
 * checks too), so a tab is never shown that could only answer 'Permission denied'.
 */
export const TAB_KEYS: Readonly<Record<Tab, readonly string[]>> = Object.fromEntries(
  TABS.map((tab): [Tab, readonly string[]] => [tab, [...new Set(TAB_COMMANDS[tab].flatMap((msgId) => commandPermission(msgId) ?? []))]]),
) as Record<Tab, readonly string[]>;

/**
 * The tabs a user may see, given the console's permission check (`useCan`), on a device of `systemType`
 * when known: a tab whose every command that system refuses (the whitelist on Linux) is not shown.
 */
export function visibleTabs(can: (...keys: string[]) => boolean, systemType?: string): Tab[] {
  return TABS.filter((tab) => can(...TAB_KEYS[tab]) && (systemType === undefined || !TAB_COMMANDS[tab].every((msgId) => refusedOnSystem(msgId, systemType))));
}

/** The tab to show: the one asked for when it is visible, else the first visible one, else none. */
export function chooseTab(requested: string | null | undefined, visible: readonly Tab[]): Tab | undefined {
  return visible.find((tab) => tab === requested) ?? visible[0];
}

/** The device view's address for one device, opened on `tab` when given. */
export function deviceViewHref(sn: string, tab?: Tab, opts: { control?: boolean } = {}): string {
  return `/device-view/index?sn=${encodeURIComponent(sn)}${tab ? `&tab=${tab}` : ''}${opts.control ? '&control=1' : ''}`;
}
