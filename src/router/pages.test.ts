import { describe, expect, it } from 'vitest';
import { AREA_PATHS } from './pages.ts';
import { publicRoutes, shellRoutes } from './routes.ts';
import commerceSource from '../pages/commerce/commerce-pages.ts?raw';
import contentSource from '../pages/content/content-pages.ts?raw';
import reportSource from '../pages/reports/report-pages.ts?raw';
import simSource from '../pages/sim/sim-pages.ts?raw';

/** The route paths an area module declares (its record's keys), read from its source. */
function declaredPaths(source: string, exportName: string): string[] {
  const start = source.indexOf(`export const ${exportName}`);
  const body = source.slice(start, source.indexOf('};', start));
  return [...body.matchAll(/^\s*'(\/[^']+)':/gm)].map((m) => m[1] ?? '');
}

describe('lazy route table (code splitting by route)', () => {
  it.each([
    ['sim', simSource, 'simPages'],
    ['commerce', commerceSource, 'commercePages'],
    ['commercePublic', commerceSource, 'commercePublicPages'],
    ['content', contentSource, 'contentPages'],
    ['reports', reportSource, 'reportPages'],
  ] as const)('the %s paths are exactly the keys of its area module', (area, source, exportName) => {
    const declared = declaredPaths(source, exportName);
    expect(declared.length).toBeGreaterThan(0);
    expect([...AREA_PATHS[area]].sort()).toEqual(declared.sort());
  });

  it('every lazily loaded area path is a route of the table', () => {
    const shell = new Set(shellRoutes.map((r) => r.path));
    const pub = new Set(publicRoutes.map((r) => r.path));
    for (const [area, paths] of Object.entries(AREA_PATHS)) {
      for (const path of paths) expect(area === 'commercePublic' ? pub.has(path) : shell.has(path), path).toBe(true);
    }
  });
});
