import { ADMIN_ROLE } from '../../protocol/index.ts';
import { type GroupId, type RouteGroup, routeGroups, type ShellRoute, shellRoutes } from './routes.ts';

/** Who is looking: the roles and permission names of the session (platform-core section 6). */
export interface Viewer {
  readonly roles: readonly string[];
  readonly permissions: readonly string[];
}

export type MenuItem = { readonly kind: 'page'; readonly route: ShellRoute } | { readonly kind: 'group'; readonly group: RouteGroup; readonly children: readonly ShellRoute[] };

export function isAdmin(viewer: Viewer): boolean {
  return viewer.roles.includes(ADMIN_ROLE);
}

/** Whether the viewer holds a permission key; the admin role holds them all (platform-core section 6). */
export function holds(viewer: Viewer, key: string): boolean {
  return isAdmin(viewer) || viewer.permissions.includes(key);
}

/**
 * The admin role reaches every route; others reach a route when they hold any one of its keys. A route
 * with no key listed in the spec is open to any logged-in user (platform-core section 6: "a route without
 * that restriction is open").
 */
export function canReach(route: ShellRoute, viewer: Viewer): boolean {
  return isAdmin(viewer) || route.keys.length === 0 || route.keys.some((key) => viewer.permissions.includes(key));
}

/** Hidden routes, and every route of a hidden group, never appear in the sidebar. */
export function inMenu(route: ShellRoute, groups: Readonly<Record<GroupId, RouteGroup>> = routeGroups): boolean {
  return !route.hidden && !(route.group !== undefined && groups[route.group].hidden);
}

/**
 * A group shows when the user holds any one of its own keys (platform-core section 2), and also when one of
 * its sidebar pages is reachable: a page the user may open must not lose its only way in because a role
 * was given the page's key without the group's (the permission tree normally gives both).
 */
export function groupVisible(group: RouteGroup, viewer: Viewer, routes: readonly ShellRoute[] = shellRoutes): boolean {
  if (group.hidden) return false;
  if (isAdmin(viewer) || group.keys.some((key) => viewer.permissions.includes(key))) return true;
  return routes.some((route) => route.group === group.id && !route.hidden && canReach(route, viewer));
}

/** The sidebar: permitted non-hidden pages, grouped, in table order; a group sits where its first page is. */
export function buildMenu(viewer: Viewer, routes: readonly ShellRoute[] = shellRoutes, groups: Readonly<Record<GroupId, RouteGroup>> = routeGroups): MenuItem[] {
  const items: MenuItem[] = [];
  const groupItems = new Map<GroupId, { kind: 'group'; group: RouteGroup; children: ShellRoute[] }>();
  for (const route of routes) {
    if (route.group === undefined) {
      if (inMenu(route, groups) && canReach(route, viewer)) items.push({ kind: 'page', route });
      continue;
    }
    const group = groups[route.group];
    let item = groupItems.get(group.id);
    if (!item) {
      if (!groupVisible(group, viewer, routes)) continue;
      item = { kind: 'group', group, children: [] };
      groupItems.set(group.id, item);
      items.push(item);
    }
    if (inMenu(route, groups) && canReach(route, viewer)) item.children.push(route);
  }
  return items;
}

/** Permitted routes whose tags stay open (the dashboard). */
export function affixRoutes(viewer: Viewer, routes: readonly ShellRoute[] = shellRoutes): ShellRoute[] {
  return routes.filter((route) => route.affix === true && canReach(route, viewer));
}

/** Breadcrumb title keys of a route: its group, then the page. */
export function breadcrumb(route: ShellRoute, groups: Readonly<Record<GroupId, RouteGroup>> = routeGroups): string[] {
  return route.group === undefined ? [route.titleKey] : [groups[route.group].titleKey, route.titleKey];
}

/**
 * Where a user goes whose role does not include the dashboard: the first sidebar page the role was given
 * (one with a key), else the first page open to everyone (the notices).
 */
export function firstMenuPath(viewer: Viewer, routes: readonly ShellRoute[] = shellRoutes): string | undefined {
  const pages = buildMenu(viewer, routes).flatMap((item) => (item.kind === 'page' ? [item.route] : item.children));
  return (pages.find((r) => r.keys.length > 0) ?? pages[0])?.path;
}
