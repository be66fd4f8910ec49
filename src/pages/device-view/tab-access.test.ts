import { describe, expect, it } from 'vitest';
import { permissionCatalogue } from '../../../protocol/index.ts';
import { chooseTab, deviceViewHref, TAB_KEYS, TABS, visibleTabs } from './tab-access.ts';

/** The console's permission check over a fixed key list (any one of the keys). */
const holding =
  (...held: string[]) =>
  (...keys: string[]) =>
    keys.some((k) => held.includes(k));

describe('device view tab access', () => {
  it('gates every tab by catalogued keys only', () => {
    const catalogued = new Set(permissionCatalogue.map((p) => p.key));
    for (const tab of TABS) {
      expect(TAB_KEYS[tab].length, tab).toBeGreaterThan(0);
      for (const key of TAB_KEYS[tab]) expect(catalogued.has(key), `${tab}: ${key}`).toBe(true);
    }
  });

  it('takes the keys of each tab from the catalogue map of the commands it sends', () => {
    expect(TAB_KEYS).toEqual({
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
      timeline: ['device_base_info'],
    });
  });

  it('shows a role only the tabs of the keys it holds, in order', () => {
    expect(visibleTabs(holding('device_list', 'device_base_info', 'device_capture'))).toEqual(['base', 'wholeTest', 'remote', 'logs', 'timeline']);
    expect(visibleTabs(holding('device_shell', 'device_file'))).toEqual(['wholeTest', 'files', 'shell']);
    expect(visibleTabs(holding('device_list'))).toEqual([]);
    expect(visibleTabs(() => true)).toEqual([...TABS]);
  });

  it('opens the tab asked for when visible, else the first visible one', () => {
    expect(chooseTab('files', ['base', 'files'])).toBe('files');
    expect(chooseTab('shell', ['base', 'files'])).toBe('base');
    expect(chooseTab(null, ['runtime'])).toBe('runtime');
    expect(chooseTab('base', [])).toBeUndefined();
  });

  it('links to a device, with the tab when given', () => {
    expect(deviceViewHref('A B/1')).toBe('/device-view/index?sn=A%20B%2F1');
    expect(deviceViewHref('SN1', 'shell')).toBe('/device-view/index?sn=SN1&tab=shell');
    expect(deviceViewHref('SN1', 'remote', { control: true })).toBe('/device-view/index?sn=SN1&tab=remote&control=1');
  });
});

describe('device view tabs by system (issue 20)', () => {
  it('hides on a Linux device a tab whose every command Linux refuses (the whitelist), and keeps the rest', () => {
    expect(visibleTabs(() => true, 'linux')).toEqual(TABS.filter((t) => t !== 'whitelist'));
    expect(visibleTabs(() => true, 'android')).toEqual([...TABS]);
    expect(visibleTabs(() => true)).toEqual([...TABS]);
  });
});
