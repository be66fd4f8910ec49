import { describe, expect, it } from 'vitest';
import { ADMIN_ROLE } from '../../protocol/index.ts';
import { buildMenu } from '../router/menu.ts';
import { routeGroups } from '../router/routes.ts';
import { topNavAreas } from '../router/top-nav.ts';
import { groupIcons, routeIcons, topNavIcons } from './menu-icons.tsx';

describe('menu icons', () => {
  it('gives every sidebar page, group and top-navigation area an icon', () => {
    const menu = buildMenu({ roles: [ADMIN_ROLE], permissions: [] });
    const pages = menu.flatMap((item) => (item.kind === 'page' ? [item.route.path] : item.children.map((r) => r.path)));
    expect(pages.length).toBeGreaterThan(20);
    expect(pages.filter((p) => !routeIcons[p])).toEqual([]);
    expect(Object.keys(routeGroups).filter((g) => !(g in groupIcons))).toEqual([]);
    expect(topNavAreas.map((a) => a.id).filter((id) => !(id in topNavIcons))).toEqual([]);
  });
});
