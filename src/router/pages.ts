import type { ComponentType } from 'react';
import { AdminPage } from '../pages/authority/AdminPage.tsx';
import { RolePage } from '../pages/authority/RolePage.tsx';
import { MonitorPage } from '../pages/monitor/MonitorPage.tsx';
import { DashboardPage } from '../pages/dashboard/DashboardPage.tsx';
import { DeviceManagementPage } from '../pages/device-management/DeviceManagementPage.tsx';
import { OrganizationPage } from '../pages/organization/OrganizationPage.tsx';
import { UserNoticePage } from '../pages/user-notice/UserNoticePage.tsx';
import { simPages } from '../pages/sim/sim-pages.ts';
import { commercePages } from '../pages/commerce/commerce-pages.ts';

/** Pages built so far, by route path; every other route of the table shows the shared AreaPlaceholder. */
export const builtPages: Readonly<Record<string, ComponentType>> = {
  '/dashboard/index': DashboardPage,
  ...simPages,
  ...commercePages,
  '/device-management/index': DeviceManagementPage,
  '/user-notice/index': UserNoticePage,
  '/organization-management/index': OrganizationPage,
  '/authority-manage/admin': AdminPage,
  '/authority-manage/role-manage': RolePage,
  '/monitor-center/index': MonitorPage,
};
