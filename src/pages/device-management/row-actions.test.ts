import { describe, expect, it } from 'vitest';
import { Command, LINUX_REFUSED_COMMANDS, permissionCatalogue } from '../../../protocol/index.ts';
import { TABS } from '../device-view/tab-access.ts';
import { MENU_ACTIONS, menuActions, ROW_ACTION_COMMAND, ROW_ACTION_KEY, ROW_ACTION_TAB } from './row-actions.ts';

describe('device row actions', () => {
  it('need a catalogued key each, and open only existing tabs', () => {
    const catalogued = new Set(permissionCatalogue.map((p) => p.key));
    for (const key of Object.values(ROW_ACTION_KEY)) expect(catalogued.has(key), key).toBe(true);
    for (const tab of Object.values(ROW_ACTION_TAB)) expect(TABS).toContain(tab);
  });

  it('offers the spec device actions (section 6) the audit found missing', () => {
    for (const action of ['baseInfo', 'systemInfo', 'runtimeInfo', 'liveControl', 'ssh', 'capture', 'files', 'shell'] as const) expect(MENU_ACTIONS).toContain(action);
    expect(ROW_ACTION_TAB).toMatchObject({ baseInfo: 'base', systemInfo: 'system', runtimeInfo: 'runtime', liveControl: 'remote', files: 'files', shell: 'shell' });
  });

  it('shows a user only the menu actions whose key they hold', () => {
    const held = new Set(['device_base_info', 'device_reset', 'device_capture']);
    expect(menuActions((k) => held.has(k))).toEqual(['baseInfo', 'capture', 'reset']);
    expect(menuActions(() => false)).toEqual([]);
    // Live control drives the live picture: it needs the live view key too.
    expect(menuActions((k) => k === 'device_live_control')).toEqual([]);
    expect(menuActions((k) => k === 'device_live_control' || k === 'device_live_view')).toEqual(['liveControl']);
  });

  it('checks the offline and Linux refusals of every action that reaches the device, through the one Linux list', () => {
    for (const action of ['baseInfo', 'systemInfo', 'runtimeInfo', 'liveControl', 'ssh', 'capture', 'files', 'shell', 'reboot', 'clear', 'reset', 'message'] as const) {
      expect(ROW_ACTION_COMMAND[action], action).toBeTypeOf('number');
    }
    expect(ROW_ACTION_COMMAND.remark).toBeUndefined();
    expect(LINUX_REFUSED_COMMANDS.has(ROW_ACTION_COMMAND.clear ?? 0)).toBe(true);
    expect(LINUX_REFUSED_COMMANDS.has(ROW_ACTION_COMMAND.reset ?? 0)).toBe(false);
    expect(ROW_ACTION_COMMAND.capture).toBe(Command.Screenshot);
  });
});
