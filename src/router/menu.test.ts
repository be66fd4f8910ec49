import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLE } from '../../protocol/index.ts';
import { affixRoutes, breadcrumb, buildMenu, canReach, firstMenuPath, holds, type MenuItem, type Viewer } from './menu.ts';
import { type GroupId, type RouteGroup, routeGroups, type ShellRoute, shellRoutes } from './routes.ts';

const pagesOf = (menu: readonly MenuItem[]): string[] => menu.flatMap((item) => (item.kind === 'page' ? [item.route.path] : item.children.map((c) => c.path)));
const groupsOf = (menu: readonly MenuItem[]): GroupId[] => menu.flatMap((item) => (item.kind === 'group' ? [item.group.id] : []));

/** Every key the tables name, so generated permission sets hit real keys as well as unknown ones. */
const tableKeys = [...new Set([...shellRoutes.flatMap((r) => r.keys), ...Object.values(routeGroups).flatMap((g) => g.keys)])];
const anyKey = fc.oneof(fc.constantFrom(...tableKeys), fc.string({ maxLength: 6 }));
const viewerArb: fc.Arbitrary<Viewer> = fc.record({
  roles: fc.subarray(['admin', 'operator', 'customer']),
  permissions: fc.uniqueArray(anyKey, { maxLength: 30 }),
});

/**
 * The rule, written out independently of menu.ts: the admin role sees everything not hidden; others see a
 * non-hidden page of a non-hidden group when they hold one of its keys (or it has none), and a group when
 * they hold one of its keys or one of its shown pages' keys. A group no route names is not in the menu.
 */
function expected(viewer: Viewer, routes: readonly ShellRoute[], groups: Readonly<Record<GroupId, RouteGroup>>) {
  const admin = viewer.roles.includes(ADMIN_ROLE);
  const held = (keys: readonly string[]) => keys.some((k) => viewer.permissions.includes(k));
  const permitted = (r: ShellRoute) => admin || r.keys.length === 0 || held(r.keys);
  const listed = (r: ShellRoute) => !r.hidden && !(r.group && groups[r.group].hidden);
  const pages = routes.filter((r) => listed(r) && permitted(r)).map((r) => r.path);
  const shownGroups = new Set(
    Object.values(groups)
      .filter((g) => routes.some((r) => r.group === g.id))
      .filter((g) => !g.hidden && (admin || held(g.keys) || routes.some((r) => r.group === g.id && listed(r) && permitted(r))))
      .map((g) => g.id),
  );
  return { pages, groups: shownGroups };
}

const groupIds: GroupId[] = ['firmware', 'report', 'authority', 'sim', 'truePoint'];
const groupArb = (id: GroupId): fc.Arbitrary<RouteGroup> =>
  fc.record({ keys: fc.uniqueArray(anyKey, { maxLength: 3 }), hidden: fc.boolean() }).map((g) => ({ id, titleKey: `group.${id}`, ...g }));
const groupsArb: fc.Arbitrary<Record<GroupId, RouteGroup>> = fc.record({
  firmware: groupArb('firmware'),
  report: groupArb('report'),
  authority: groupArb('authority'),
  sim: groupArb('sim'),
  truePoint: groupArb('truePoint'),
});
const routesArb: fc.Arbitrary<ShellRoute[]> = fc.uniqueArray(
  fc.record({
    path: fc.stringMatching(/^\/[a-z]{1,4}\/[a-z]{1,4}$/),
    titleKey: fc.constant('route.x'),
    keys: fc.uniqueArray(anyKey, { maxLength: 2 }),
    hidden: fc.boolean(),
    group: fc.option(fc.constantFrom(...groupIds), { nil: undefined }),
  }),
  { selector: (r) => r.path, maxLength: 25 },
);

describe('permission-filtered sidebar', () => {
  it('shows exactly the permitted non-hidden routes and the groups with a permitted key, for any permission set', () => {
    fc.assert(
      fc.property(viewerArb, (viewer) => {
        const menu = buildMenu(viewer);
        const want = expected(viewer, shellRoutes, routeGroups);
        expect(pagesOf(menu).sort()).toEqual([...want.pages].sort());
        expect(new Set(groupsOf(menu))).toEqual(want.groups);
      }),
      { numRuns: 500 },
    );
  });

  it('holds for arbitrary route tables too, keeping table order and every page under its own group', () => {
    fc.assert(
      fc.property(viewerArb, routesArb, groupsArb, (viewer, routes, groups) => {
        const menu = buildMenu(viewer, routes, groups);
        const want = expected(viewer, routes, groups);
        const order = new Map(routes.map((r, i) => [r.path, i]));
        expect(new Set(pagesOf(menu))).toEqual(new Set(want.pages));
        expect(new Set(groupsOf(menu))).toEqual(want.groups);
        expect(groupsOf(menu)).toHaveLength(want.groups.size);
        for (const item of menu) {
          if (item.kind === 'page') expect(item.route.group).toBeUndefined();
          else for (const child of item.children) expect(child.group).toBe(item.group.id);
        }
        const flat = pagesOf(menu).filter((p) => routes.find((r) => r.path === p)?.group === undefined);
        expect(flat.map((p) => order.get(p))).toEqual([...flat.map((p) => order.get(p))].sort((a = 0, b = 0) => a - b));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the admin role every non-hidden route and group, and nothing hidden', () => {
    const menu = buildMenu({ roles: ['admin'], permissions: [] });
    expect(groupsOf(menu)).toEqual(['firmware', 'report', 'authority', 'sim']);
    expect(pagesOf(menu)).not.toContain('/device-view/index');
    expect(pagesOf(menu)).not.toContain('/true-point/account-manage');
    expect(pagesOf(menu)).toContain('/statistical-report/platform-usage-statistics');
  });

  it('shows a group for any one of its listed keys (permit_manage or permit_manganer)', () => {
    expect(groupsOf(buildMenu({ roles: [], permissions: ['permit_manganer'] }))).toEqual(['authority']);
    expect(groupsOf(buildMenu({ roles: [], permissions: ['permit_manage'] }))).toEqual(['authority']);
    expect(pagesOf(buildMenu({ roles: [], permissions: ['permit_manage', 'managers_list'] }))).toContain('/authority-manage/admin');
    expect(pagesOf(buildMenu({ roles: [], permissions: ['permit_manage', 'admin_list'] }))).toContain('/authority-manage/admin');
  });

  it('gives routes with no key listed to any logged-in user', () => {
    const nobody: Viewer = { roles: [], permissions: [] };
    expect(pagesOf(buildMenu(nobody))).toEqual(['/user-notice/index']);
    const payData = shellRoutes.find((r) => r.path === '/pay-data/index');
    expect(payData && canReach(payData, nobody)).toBe(true);
    const dashboard = shellRoutes.find((r) => r.path === '/dashboard/index');
    expect(dashboard && canReach(dashboard, nobody)).toBe(false);
  });

  it('keeps the dashboard as the affix route for those who may open it, and builds breadcrumbs', () => {
    expect(affixRoutes({ roles: [], permissions: ['home_list'] }).map((r) => r.path)).toEqual(['/dashboard/index']);
    expect(affixRoutes({ roles: [], permissions: [] })).toEqual([]);
    const report = shellRoutes.find((r) => r.path === '/statistical-report/abnormal-statistics');
    expect(report && breadcrumb(report)).toEqual(['group.report', 'route.abnormalStatistics']);
    const dashboard = shellRoutes.find((r) => r.path === '/dashboard/index');
    expect(dashboard && breadcrumb(dashboard)).toEqual(['route.dashboard']);
  });

  it('lists every path of both route tables exactly once', () => {
    const paths = shellRoutes.map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
    // The 43 paths of both spec tables are all there; the areas may add their own (the monitor centre, …).
    const specPaths = [
      '/dashboard/index',
      '/user-notice/index',
      '/document-library/index',
      '/document-library-detail/index',
      '/document-library-detail-gitbook/index',
      '/document-library-detail-gitbook-qa/index',
      '/organization-management/index',
      '/firmware-version/index',
      '/firmware-customize/index',
      '/firmware-manage/firmware-coupon',
      '/application-management/index',
      '/file-management/index',
      '/logo-management/index',
      '/background-manage/index',
      '/device-management/index',
      '/device-view/index',
      '/device-view/webssh',
      '/remote-management/index',
      '/log-management/index',
      '/license-manage/index',
      '/order-query/index',
      '/order-demand/index',
      '/true-point/account-manage',
      '/true-point/equipment-manage',
      '/statistical-report/multi-model-analysis',
      '/statistical-report/device-location-statistics',
      '/statistical-report/device-map-distribution',
      '/statistical-report/abnormal-statistics',
      '/statistical-report/system-operation-log',
      '/statistical-report/platform-usage-statistics',
      '/authority-manage/admin',
      '/authority-manage/role-manage',
      '/spring-card-manage/spring-card-manage',
      '/custom-service/group-management',
      '/custom-service/group-config',
      '/sim-card-management/card-management',
      '/sim-card-management/sim-card-view',
      '/sim-card-management/intelligent-test',
      '/sim-card-management/bill-query',
      '/pay-data/index',
      '/monthly-bill/index',
      '/juxin-card-manage/index',
      '/juxin-pay-data/index',
    ];
    expect(specPaths).toHaveLength(43);
    for (const path of specPaths) expect(paths, path).toContain(path);
  });

  it('a role without the dashboard starts on its first menu page; holds() gives the admin role every key', () => {
    expect(firstMenuPath({ roles: ['ops'], permissions: ['device_list', 'org_list'] })).toBe('/organization-management/index');
    expect(firstMenuPath({ roles: ['ops'], permissions: ['role_list'] })).toBe('/authority-manage/role-manage');
    expect(firstMenuPath({ roles: ['admin'], permissions: [] })).toBe('/dashboard/index');
    expect(holds({ roles: ['admin'], permissions: [] }, 'anything')).toBe(true);
    expect(holds({ roles: ['ops'], permissions: ['role_list'] }, 'admin_list')).toBe(false);
  });
});
