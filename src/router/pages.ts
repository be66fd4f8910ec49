import type { ComponentType } from 'react';
import { AdminPage } from '../pages/authority/AdminPage.tsx';
import { RolePage } from '../pages/authority/RolePage.tsx';
import { MonitorPage } from '../pages/monitor/MonitorPage.tsx';
import { DashboardPage } from '../pages/dashboard/DashboardPage.tsx';
import { DocumentAdminPage } from '../pages/document-admin/DocumentAdminPage.tsx';
import { DocumentDetailPage, DocumentGitbookPage } from '../pages/document-library/DocumentDetailPage.tsx';
import { DocumentLibraryPage } from '../pages/document-library/DocumentLibraryPage.tsx';
import { NoticeAdminPage } from '../pages/notice-admin/NoticeAdminPage.tsx';
import { DeviceManagementPage } from '../pages/device-management/DeviceManagementPage.tsx';
import { DeviceViewPage } from '../pages/device-view/DeviceViewPage.tsx';
import { DeviceWebsshPage } from '../pages/device-webssh/DeviceWebsshPage.tsx';
import { RemoteManagementPage } from '../pages/remote-management/RemoteManagementPage.tsx';
import { OrganizationPage } from '../pages/organization/OrganizationPage.tsx';
import { UserNoticePage } from '../pages/user-notice/UserNoticePage.tsx';
import { simPages } from '../pages/sim/sim-pages.ts';
import { commercePages, commercePublicPages } from '../pages/commerce/commerce-pages.ts';
import { contentPages } from '../pages/content/content-pages.ts';
import { reportPages } from '../pages/reports/report-pages.ts';
import { ApiTokensPage } from '../pages/integrations/ApiTokensPage.tsx';
import { WebhooksPage } from '../pages/integrations/WebhooksPage.tsx';

/** Pages built so far, by route path; every other route of the table shows the shared AreaPlaceholder. */
export const builtPages: Readonly<Record<string, ComponentType>> = {
  '/dashboard/index': DashboardPage,
  ...simPages,
  ...commercePages,
  ...contentPages,
  ...reportPages,
  '/device-management/index': DeviceManagementPage,
  '/device-view/index': DeviceViewPage,
  '/device-view/webssh': DeviceWebsshPage,
  '/remote-management/index': RemoteManagementPage,
  '/user-notice/index': UserNoticePage,
  '/notice-admin/index': NoticeAdminPage,
  '/document-library/index': DocumentLibraryPage,
  '/document-library-detail/index': DocumentDetailPage,
  '/document-library-detail-gitbook/index': DocumentGitbookPage,
  '/document-library-detail-gitbook-qa/index': DocumentGitbookPage,
  '/document-admin/index': DocumentAdminPage,
  '/organization-management/index': OrganizationPage,
  '/authority-manage/admin': AdminPage,
  '/authority-manage/role-manage': RolePage,
  '/monitor-center/index': MonitorPage,
  '/integrations/webhooks': WebhooksPage,
  '/integrations/api-tokens': ApiTokensPage,
};

/** Public pages built so far (outside the shell, no session); other public routes show the placeholder. */
export const builtPublicPages: Readonly<Record<string, ComponentType>> = {
  ...commercePublicPages,
};
