import type { ComponentType } from 'react';
import { lazyArea, lazyPage } from './lazy-page.tsx';

// Every page is its own chunk, fetched on the route's first visit (issue 21: the login page and the shell
// stay small). An area module (SIM, commerce, content, reports) is one chunk for all of its routes.

/** The areas' route paths; src/router/pages.test.ts checks they are exactly each area module's keys. */
export const AREA_PATHS = {
  sim: [
    '/spring-card-manage/spring-card-manage',
    '/custom-service/group-management',
    '/custom-service/group-config',
    '/sim-card-management/card-management',
    '/sim-card-management/sim-card-view',
    '/sim-card-management/intelligent-test',
    '/juxin-card-manage/index',
  ],
  commerce: [
    '/sim-card-management/bill-query',
    '/pay-data/index',
    '/monthly-bill/index',
    '/juxin-pay-data/index',
    '/order-query/index',
    '/license-manage/index',
    '/order-demand/index',
    '/true-point/account-manage',
    '/true-point/equipment-manage',
  ],
  commercePublic: ['/isobus-activate', '/order-demand-detail'],
  content: [
    '/firmware-version/index',
    '/firmware-customize/index',
    '/firmware-manage/firmware-coupon',
    '/application-management/index',
    '/file-management/index',
    '/logo-management/index',
    '/background-manage/index',
    '/log-management/index',
    '/content-push/index',
  ],
  reports: [
    '/statistical-report/multi-model-analysis',
    '/statistical-report/device-location-statistics',
    '/statistical-report/device-map-distribution',
    '/statistical-report/abnormal-statistics',
    '/statistical-report/system-operation-log',
    '/statistical-report/platform-usage-statistics',
  ],
} as const;

const commerce = () => import('../pages/commerce/commerce-pages.ts');

/** Pages built so far, by route path; every other route of the table shows the shared AreaPlaceholder. */
export const builtPages: Readonly<Record<string, ComponentType>> = {
  '/dashboard/index': lazyPage(() => import('../pages/dashboard/DashboardPage.tsx').then((m) => m.DashboardPage), 'base'),
  ...lazyArea(() => import('../pages/sim/sim-pages.ts').then((m) => m.simPages), AREA_PATHS.sim),
  ...lazyArea(() => commerce().then((m) => m.commercePages), AREA_PATHS.commerce),
  ...lazyArea(() => import('../pages/content/content-pages.ts').then((m) => m.contentPages), AREA_PATHS.content),
  ...lazyArea(() => import('../pages/reports/report-pages.ts').then((m) => m.reportPages), AREA_PATHS.reports),
  '/device-management/index': lazyPage(() => import('../pages/device-management/DeviceManagementPage.tsx').then((m) => m.DeviceManagementPage)),
  '/device-field/index': lazyPage(() => import('../pages/device-fields/DeviceFieldsPage.tsx').then((m) => m.DeviceFieldsPage)),
  '/device-view/index': lazyPage(() => import('../pages/device-view/DeviceViewPage.tsx').then((m) => m.DeviceViewPage)),
  '/device-view/webssh': lazyPage(() => import('../pages/device-webssh/DeviceWebsshPage.tsx').then((m) => m.DeviceWebsshPage)),
  '/device-view/recording': lazyPage(() => import('../pages/recording-replay/RecordingReplayPage.tsx').then((m) => m.RecordingReplayPage)),
  '/recording-management/index': lazyPage(() => import('../pages/recordings/RecordingListPage.tsx').then((m) => m.RecordingListPage)),
  '/remote-management/index': lazyPage(() => import('../pages/remote-management/RemoteManagementPage.tsx').then((m) => m.RemoteManagementPage)),
  '/user-notice/index': lazyPage(() => import('../pages/user-notice/UserNoticePage.tsx').then((m) => m.UserNoticePage)),
  '/notice-admin/index': lazyPage(() => import('../pages/notice-admin/NoticeAdminPage.tsx').then((m) => m.NoticeAdminPage)),
  '/document-library/index': lazyPage(() => import('../pages/document-library/DocumentLibraryPage.tsx').then((m) => m.DocumentLibraryPage)),
  '/document-library-detail/index': lazyPage(() => import('../pages/document-library/DocumentDetailPage.tsx').then((m) => m.DocumentDetailPage)),
  '/document-library-detail-gitbook/index': lazyPage(() => import('../pages/document-library/DocumentDetailPage.tsx').then((m) => m.DocumentGitbookPage)),
  '/document-library-detail-gitbook-qa/index': lazyPage(() => import('../pages/document-library/DocumentDetailPage.tsx').then((m) => m.DocumentGitbookPage)),
  '/document-admin/index': lazyPage(() => import('../pages/document-admin/DocumentAdminPage.tsx').then((m) => m.DocumentAdminPage)),
  '/organization-management/index': lazyPage(() => import('../pages/organization/OrganizationPage.tsx').then((m) => m.OrganizationPage)),
  '/authority-manage/admin': lazyPage(() => import('../pages/authority/AdminPage.tsx').then((m) => m.AdminPage)),
  '/authority-manage/role-manage': lazyPage(() => import('../pages/authority/RolePage.tsx').then((m) => m.RolePage)),
  '/monitor-center/index': lazyPage(() => import('../pages/monitor/MonitorPage.tsx').then((m) => m.MonitorPage)),
  '/integrations/webhooks': lazyPage(() => import('../pages/integrations/WebhooksPage.tsx').then((m) => m.WebhooksPage)),
  '/integrations/api-tokens': lazyPage(() => import('../pages/integrations/ApiTokensPage.tsx').then((m) => m.ApiTokensPage)),
  '/integrations/two-step': lazyPage(() => import('../pages/integrations/TwoStepPage.tsx').then((m) => m.TwoStepPage)),
  '/approvals/index': lazyPage(() => import('../pages/approvals/ApprovalsPage.tsx').then((m) => m.ApprovalsPage)),
};

/** Public pages built so far (outside the shell, no session); other public routes show the placeholder. */
export const builtPublicPages: Readonly<Record<string, ComponentType>> = {
  ...lazyArea(() => commerce().then((m) => m.commercePublicPages), AREA_PATHS.commercePublic),
  // The shared demand opens through a gate that explains a missing or refused link (issue 19).
  '/order-demand-detail': lazyPage(() => import('../pages/public/OrderDemandDetailGate.tsx').then((m) => m.OrderDemandDetailGate)),
  '/gitbook': lazyPage(() => import('../pages/public/GuidePage.tsx').then((m) => m.GuidePage)),
  '/Introduction/': lazyPage(() => import('../pages/public/GuidePage.tsx').then((m) => m.IntroductionPage)),
  '/auth-redirect': lazyPage(() => import('../pages/public/AuthRedirectPage.tsx').then((m) => m.AuthRedirectPage)),
};
