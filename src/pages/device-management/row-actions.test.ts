import { describe, expect, it } from 'vitest';
import { Command, commandPermission, LINUX_REFUSED_COMMANDS, permissionCatalogue } from '../../../protocol/index.ts';
import { TABS } from '../device-view/tab-access.ts';
import { DANGEROUS_ACTIONS, MENU_ACTIONS, menuActions, ROW_ACTION_COMMAND, ROW_ACTION_KEY, ROW_ACTION_TAB } from './row-actions.ts';

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

  it('does not offer on a Linux device what Linux refuses (clear data), and offers it on Android (issue 20)', () => {
    expect(menuActions(() => true, 'linux')).not.toContain('clear');
    expect(menuActions(() => true, 'android')).toContain('clear');
    expect(menuActions(() => true, 'linux')).toEqual(MENU_ACTIONS.filter((a) => a !== 'clear'));
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

  it('take the key of the command they send from the catalogue, and only server edits have keys of their own', () => {
    expect(ROW_ACTION_KEY).toEqual({
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
    });
    for (const [action, msgId] of Object.entries(ROW_ACTION_COMMAND)) expect(ROW_ACTION_KEY[action as keyof typeof ROW_ACTION_KEY]).toBe(commandPermission(msgId));
    expect([...DANGEROUS_ACTIONS].sort()).toEqual(['clear', 'reset']);
  });
});
