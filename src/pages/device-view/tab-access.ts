/** The device view's tabs (devices-and-commerce section 2), in the order they show. */
export const TABS = ['base', 'system', 'runtime', 'wholeTest', 'remote', 'files', 'config', 'shell', 'whitelist', 'logs'] as const;
export type Tab = (typeof TABS)[number];

/**
 * The permission keys that show each tab: the user needs any one of them. A tab's keys are those of the
 * commands it sends (server/gateway/command-permissions.ts), so a tab is never shown that could only
 * answer 'Permission denied'. The remote and whole-test tabs gather several actions, each of which is
 * shown or run only under its own key inside the tab.
 */
export const TAB_KEYS: Readonly<Record<Tab, readonly string[]>> = {
  base: ['device_base_info'],
  system: ['device_system_info'],
  runtime: ['device_runtime'],
  wholeTest: ['device_base_info', 'device_system_info', 'device_runtime', 'device_file', 'device_capture'],
  remote: ['device_live_view', 'device_live_control', 'device_reboot', 'device_reset', 'device_clear', 'device_capture', 'device_message', 'device_ssh', 'device_app', 'device_system_info'],
  files: ['device_file'],
  config: ['device_system_info'],
  shell: ['device_shell'],
  whitelist: ['device_whitelist'],
  logs: ['device_capture'],
};

/** The tabs a user may see, given the console's permission check (`useCan`). */
export function visibleTabs(can: (...keys: string[]) => boolean): Tab[] {
  return TABS.filter((tab) => can(...TAB_KEYS[tab]));
}

/** The tab to show: the one asked for when it is visible, else the first visible one, else none. */
export function chooseTab(requested: string | null | undefined, visible: readonly Tab[]): Tab | undefined {
  return visible.find((tab) => tab === requested) ?? visible[0];
}

/** The device view's address for one device, opened on `tab` when given. */
export function deviceViewHref(sn: string, tab?: Tab, opts: { control?: boolean } = {}): string {
  return `/device-view/index?sn=${encodeURIComponent(sn)}${tab ? `&tab=${tab}` : ''}${opts.control ? '&control=1' : ''}`;
}
