import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterLogin, guard, HOME_PATH, PUBLIC_PATHS, redirectTarget } from './guard.ts';

describe('navigation guard', () => {
  it('sends / to the dashboard', () => {
    expect(guard('/', '', false)).toEqual({ kind: 'redirect', to: HOME_PATH });
  });

  it('lets public paths through without a session', () => {
    for (const path of PUBLIC_PATHS) expect(guard(path, '', false)).toEqual({ kind: 'allow' });
  });

  it('sends any other path without a session to /login carrying the wanted path', () => {
    fc.assert(
      fc.property(fc.webPath().filter((p) => p.startsWith('/') && !p.startsWith('//') && p !== '/' && !p.startsWith('/login') && !PUBLIC_PATHS.includes(p)), fc.constantFrom('', '?a=1'), (path, search) => {
        const d = guard(path, search, false);
        expect(d.kind).toBe('redirect');
        if (d.kind === 'redirect') expect(afterLogin(new URL(d.to, 'http://x').search)).toBe(path + search);
      }),
    );
  });

  it('lets a logged-in user straight through, including to /login', () => {
    expect(guard('/login', '', true)).toEqual({ kind: 'allow' });
    expect(guard('/device-management/index', '', true)).toEqual({ kind: 'allow' });
  });

  it('never redirects after login to another site', () => {
    expect(afterLogin('?redirect=//evil.example')).toBe(HOME_PATH);
    expect(afterLogin('?redirect=https://evil.example')).toBe(HOME_PATH);
    expect(afterLogin('')).toBe(HOME_PATH);
  });

  it('sends /redirect/{path} to /{path}, query included, and never off the site', () => {
    expect(redirectTarget('/redirect/device-management/index', '?sn=1')).toBe('/device-management/index?sn=1');
    expect(redirectTarget('/redirect/', '')).toBe('/');
    expect(redirectTarget('/redirect//evil.example', '')).toBe('/evil.example');
  });
});
