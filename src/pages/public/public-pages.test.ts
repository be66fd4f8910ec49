import { describe, expect, it, vi } from 'vitest';

// The console's modules read cookies as they load; Node has no document (the unit project runs in Node).
vi.hoisted(() => {
  Object.assign(globalThis, { document: { cookie: '', documentElement: {}, title: '' } });
});
import { safeRedirect } from './AuthRedirectPage.tsx';
import { renderGuide } from './GuidePage.tsx';
import guideEn from './guide/en.md?raw';
import guideZh from './guide/zh.md?raw';

describe('public pages', () => {
  it('follows only paths of this console from /auth-redirect', () => {
    expect(safeRedirect('/organization-management/index')).toBe('/organization-management/index');
    expect(safeRedirect('/user/device-management/index?x=1')).toBe('/device-management/index?x=1');
    for (const bad of [null, '', 'https://evil.example/', '//evil.example/x', '/\\evil.example', '/javascript:alert(1)', 'dashboard']) {
      expect(safeRedirect(bad)).toBe('/dashboard/index');
    }
  });

  it('renders both guides with the same sections, each with an id for the contents list', () => {
    const en = renderGuide(guideEn);
    const zh = renderGuide(guideZh);
    expect(en.sections.length).toBeGreaterThanOrEqual(8);
    expect(zh.sections.length).toBe(en.sections.length);
    for (const s of en.sections) expect(en.html).toContain(`<h2 id="${s.id}">`);
    expect(en.html).toContain('<table>');
    expect(zh.sections.map((s) => s.title)).toContain('组织');
  });
});
