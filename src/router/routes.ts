import type { ComponentType } from 'react';
import { ADMIN_ROLE } from '../../protocol/index.ts';
import { DashboardPage } from '../pages/dashboard/DashboardPage.tsx';
import { DeviceManagementPage } from '../pages/device-management/DeviceManagementPage.tsx';

/** A page inside the layout shell, gated by a permission key (platform-core section 2). */
export interface ShellRoute {
  readonly path: string;
  readonly titleKey: string;
  readonly permission: string;
  readonly component: ComponentType;
}

export const shellRoutes: readonly ShellRoute[] = [
  { path: '/dashboard/index', titleKey: 'route.dashboard', permission: 'home_list', component: DashboardPage },
  { path: '/device-management/index', titleKey: 'route.deviceManagement', permission: 'device_list', component: DeviceManagementPage },
];

/** The admin role reaches every route; others need the route's key (platform-core section 6). */
export function canReach(route: ShellRoute, roles: readonly string[], permissions: readonly string[]): boolean {
  return roles.includes(ADMIN_ROLE) || permissions.includes(route.permission);
}
