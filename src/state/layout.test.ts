import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeSetting, DEFAULT_SETTINGS, layout, parseSettings, resetSettings, toggleSidebar } from './layout.ts';

describe('layout settings', () => {
  it('defaults to theme #1890ff, tags view on, fixed header off, sidebar logo off', () => {
    expect(parseSettings(null)).toEqual({ themeColor: '#1890ff', tagsView: true, fixedHeader: false, sidebarLogo: false });
    expect(layout.settingsOpened).toBe(false);
  });

  it('reads what was stored and falls back per field on anything else', () => {
    expect(parseSettings(JSON.stringify({ themeColor: '#409EFF', tagsView: false, fixedHeader: true, sidebarLogo: true }))).toEqual({
      themeColor: '#409eff',
      tagsView: false,
      fixedHeader: true,
      sidebarLogo: true,
    });
    expect(parseSettings(JSON.stringify({ themeColor: 'red', tagsView: 'no' }))).toEqual(DEFAULT_SETTINGS);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (raw) => {
        const s = parseSettings(raw);
        expect(Object.keys(s).sort()).toEqual(['fixedHeader', 'sidebarLogo', 'tagsView', 'themeColor']);
        expect(s.themeColor).toMatch(/^#[0-9a-f]{6}$/);
      }),
    );
  });

  it('changes one setting at a time, ignoring an invalid colour, and resets', () => {
    changeSetting('fixedHeader', true);
    changeSetting('themeColor', '#ABC');
    changeSetting('themeColor', 'not a colour');
    expect(layout.settings).toEqual({ ...DEFAULT_SETTINGS, fixedHeader: true, themeColor: '#aabbcc' });
    resetSettings();
    expect(layout.settings).toEqual(DEFAULT_SETTINGS);
  });

  it('toggles the sidebar', () => {
    const before = layout.sidebarOpened;
    toggleSidebar();
    expect(layout.sidebarOpened).toBe(!before);
    toggleSidebar();
    expect(layout.sidebarOpened).toBe(before);
  });
});
