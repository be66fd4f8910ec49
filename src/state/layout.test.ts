import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeSetting, DEFAULT_SETTINGS, layout, parseSettings, pickLayoutMode, resetSettings, scaleFor, toggleSidebar } from './layout.ts';

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

  it('scales the desktop layout under 1340 px toward a 1600 px layout', () => {
    expect(scaleFor(1600)).toBe(1);
    expect(scaleFor(1340)).toBe(1);
    expect(scaleFor(1280)).toBe(0.8);
    fc.assert(fc.property(fc.integer({ min: 1, max: 1339 }), (w) => {
        expect(scaleFor(w) * 1600).toBeCloseTo(w);
      }),
    );
  });

  it('layout mode: the link wins, then the stored choice, then phone widths', () => {
    expect(pickLayoutMode('1', 'desktop', 1600)).toBe('mobile');
    expect(pickLayoutMode('0', 'mobile', 390)).toBe('desktop');
    expect(pickLayoutMode(null, 'mobile', 1600)).toBe('mobile');
    expect(pickLayoutMode(null, null, 390)).toBe('mobile');
    expect(pickLayoutMode(null, 'junk', 1024)).toBe('desktop');
  });
});
