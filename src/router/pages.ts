import type { ComponentType } from 'react';
import { DashboardPage } from '../pages/dashboard/DashboardPage.tsx';
import { DeviceManagementPage } from '../pages/device-management/DeviceManagementPage.tsx';
import { OrganizationPage } from '../pages/organization/OrganizationPage.tsx';
import { UserNoticePage } from '../pages/user-notice/UserNoticePage.tsx';

/** Pages built so far, by route path; every other route of the table shows the shared AreaPlaceholder. */
export const builtPages: Readonly<Record<string, ComponentType>> = {
  '/dashboard/index': DashboardPage,
  '/device-management/index': DeviceManagementPage,
  '/user-notice/index': UserNoticePage,
  '/organization-management/index': OrganizationPage,
};
