import { canReach, isAdmin, type Viewer } from './menu.ts';
import { findShellRoute, type ShellRoute } from './routes.ts';

/**
 * The top navigation of platform-core section 2: monitor centre, operation analysis, basic info, charts
 * and system management. The spec names the entries, not their contents; each is an area of existing
 * routes (listed in the order its entry tries them) and leads to the first one the user may open.
 * System management appears only for the admin role.
 */
export type TopNavId = 'monitor' | 'analysis' | 'basicInfo' | 'charts' | 'system';

export interface TopNavArea {
  readonly id: TopNavId;
  readonly titleKey: string;
  readonly paths: readonly string[];
  readonly adminOnly: boolean;
}

export const topNavAreas: readonly TopNavArea[] = [
  { id: 'monitor', titleKey: 'topNav.monitor', paths: ['/monitor-center/index'], adminOnly: false },
  {
    id: 'analysis',
    titleKey: 'topNav.analysis',
    paths: [
      '/statistical-report/multi-model-analysis',
      '/statistical-report/platform-usage-statistics',
      '/statistical-report/abnormal-statistics',
      '/log-management/index',
      '/order-query/index',
      '/sim-card-management/bill-query',
    ],
    adminOnly: false,
  },
  {
    id: 'basicInfo',
    titleKey: 'topNav.basicInfo',
    paths: [
      '/organization-management/index',
      '/device-management/index',
      '/firmware-version/index',
      '/application-management/index',
      '/file-management/index',
      '/logo-management/index',
      '/background-manage/index',
      '/sim-card-management/card-management',
      '/document-library/index',
    ],
    adminOnly: false,
  },
  {
    id: 'charts',
    titleKey: 'topNav.charts',
    paths: ['/dashboard/index', '/statistical-report/device-location-statistics', '/statistical-report/device-map-distribution'],
    adminOnly: false,
  },
  {
    id: 'system',
    titleKey: 'topNav.system',
    paths: ['/authority-manage/admin', '/authority-manage/role-manage', '/statistical-report/system-operation-log', '/user-notice/index'],
    adminOnly: true,
  },
];

export interface TopNavEntry {
  readonly area: TopNavArea;
  /** Where the entry leads: the first route of the area the viewer may open. */
  readonly to: string;
}

/** The entries the viewer sees: areas holding a reachable route, system management for the admin role only. */
export function topNavEntries(viewer: Viewer, areas: readonly TopNavArea[] = topNavAreas): TopNavEntry[] {
  const entries: TopNavEntry[] = [];
  for (const area of areas) {
    if (area.adminOnly && !isAdmin(viewer)) continue;
    const first = area.paths.map(findShellRoute).find((r): r is ShellRoute => r !== undefined && canReach(r, viewer));
    if (first) entries.push({ area, to: first.path });
  }
  return entries;
}

/** The area the current page belongs to, if any (the first listing it). */
export function areaOf(path: string, areas: readonly TopNavArea[] = topNavAreas): TopNavId | undefined {
  return areas.find((a) => a.paths.includes(path))?.id;
}
