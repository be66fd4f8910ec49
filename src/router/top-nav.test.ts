import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { permissionCatalogue } from '../../protocol/index.ts';
import { canReach } from './menu.ts';
import { findShellRoute } from './routes.ts';
import { areaOf, topNavAreas, topNavEntries } from './top-nav.ts';

const keys = permissionCatalogue.map((e) => e.key);

describe('top navigation', () => {
  it('every path of every area is a route of the table', () => {
    for (const area of topNavAreas) for (const path of area.paths) expect(findShellRoute(path), path).toBeDefined();
  });

  it('the admin role sees all five entries, each leading to the first page of its area', () => {
    const entries = topNavEntries({ roles: ['admin'], permissions: [] });
    expect(entries.map((e) => e.area.id)).toEqual(['monitor', 'analysis', 'basicInfo', 'charts', 'system']);
    expect(entries.map((e) => e.to)).toEqual(['/monitor-center/index', '/statistical-report/multi-model-analysis', '/organization-management/index', '/dashboard/index', '/authority-manage/admin']);
  });

  it('for any permission set: no system management without the admin role, and every entry leads to a reachable page of its area', () => {
    fc.assert(
      fc.property(fc.subarray(keys), (permissions) => {
        const viewer = { roles: ['operator'], permissions };
        const entries = topNavEntries(viewer);
        expect(entries.some((e) => e.area.id === 'system')).toBe(false);
        for (const e of entries) {
          const route = findShellRoute(e.to);
          expect(route && canReach(route, viewer)).toBe(true);
          expect(e.area.paths).toContain(e.to);
        }
        expect(entries.some((e) => e.area.id === 'monitor')).toBe(permissions.includes('device_list'));
      }),
    );
  });

  it('knows the area of a page', () => {
    expect(areaOf('/authority-manage/role-manage')).toBe('system');
    expect(areaOf('/device-view/webssh')).toBeUndefined();
  });
});
