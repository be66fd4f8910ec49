/**
 * The route table of the layout shell: platform-core section 2 (main routes) and devices-and-commerce
 * section 2. Pure data, no components: src/router/pages.ts maps paths to pages, src/router/menu.ts filters
 * this table by permission.
 *
 * Decisions the spec leaves open (also in the report to reviewers):
 * - Routes with no key listed in the spec (/user-notice/index, /pay-data/index, /juxin-pay-data/index and
 *   the true-point pages) have `keys: []`: any logged-in user reaches them. The spec says a route without
 *   a restriction is open (platform-core section 6).
 * - A route with several keys (the admin page: managers_list or admin_list) is reached with any one of them.
 * - The firmware group holds the three firmware pages: the spec names the group on /firmware-version/index
 *   and the permission catalogue parents all three keys to img_manager.
 * - /statistical-report/platform-usage-statistics (report_statistics_usetime) comes from the devices
 *   document only; it belongs to the report group like its siblings.
 * - The payment pages are no-cache (amounts and order states must be fresh on every visit); the footer is
 *   hidden on pay-data (both card families) and order-query, as the spec says.
 */

import { permissionCatalogue } from '../../protocol/index.ts';

/** Keys of device actions: everything under Device management in the permission tree but seeing the list itself. */
const DEVICE_ACTION_KEYS = permissionCatalogue.filter((p) => p.parent === 'device_list').map((p) => p.key);

/** Menu groups of the sidebar. */
export type GroupId = 'firmware' | 'report' | 'authority' | 'sim' | 'truePoint';

export interface RouteGroup {
  readonly id: GroupId;
  readonly titleKey: string;
  /** The group's own keys: the group shows when the user holds any one of them (or reaches one of its pages). */
  readonly keys: readonly string[];
  /** A hidden group and all its pages never appear in the sidebar. */
  readonly hidden: boolean;
}

/** A page inside the layout shell. */
export interface ShellRoute {
  readonly path: string;
  readonly titleKey: string;
  /** Any one of these reaches the page; empty means any logged-in user (no key listed in the spec). */
  readonly keys: readonly string[];
  readonly group?: GroupId;
  /** Reachable by path but never in the sidebar. */
  readonly hidden: boolean;
  /** A tag of this page stays open in the tags view (close others / close all keep it). */
  readonly affix?: boolean;
  /** The page mounts afresh on every visit instead of keeping its state while its tag is open. */
  readonly noCache?: boolean;
  /** The copyright footer is not shown under this page (platform-core section 2). */
  readonly noFooter?: boolean;
}

export const routeGroups: Readonly<Record<GroupId, RouteGroup>> = {
  firmware: { id: 'firmware', titleKey: 'group.firmware', keys: ['img_manager'], hidden: false },
  report: { id: 'report', titleKey: 'group.report', keys: ['report_manganer'], hidden: false },
  authority: { id: 'authority', titleKey: 'group.authority', keys: ['permit_manage', 'permit_manganer'], hidden: false },
  sim: { id: 'sim', titleKey: 'group.sim', keys: ['sim_manage'], hidden: false },
  truePoint: { id: 'truePoint', titleKey: 'group.truePoint', keys: [], hidden: true },
};

interface Options {
  readonly group?: GroupId;
  readonly hidden?: boolean;
  readonly affix?: boolean;
  readonly noCache?: boolean;
  readonly noFooter?: boolean;
}

const r = (path: string, titleKey: string, keys: readonly string[], opts: Options = {}): ShellRoute => ({
  path,
  titleKey: `route.${titleKey}`,
  keys,
  hidden: opts.hidden ?? false,
  ...(opts.group ? { group: opts.group } : {}),
  ...(opts.affix ? { affix: true } : {}),
  ...(opts.noCache ? { noCache: true } : {}),
  ...(opts.noFooter ? { noFooter: true } : {}),
});
const hidden = { hidden: true } as const;

/** Every shell page in sidebar order; a group sits where its first page is. */
export const shellRoutes: readonly ShellRoute[] = [
  r('/dashboard/index', 'dashboard', ['home_list'], { affix: true }),
  r('/user-notice/index', 'userNotice', []),
  // Ours: the top navigation's live wall of the fleet; its way in is the top navigation, not the sidebar.
  r('/monitor-center/index', 'monitorCenter', ['device_list'], hidden),
  r('/document-library/index', 'documentLibrary', ['document_list']),
  r('/document-library-detail/index', 'documentDetail', ['document_list'], hidden),
  r('/document-library-detail-gitbook/index', 'documentGitbook', ['document_list'], hidden),
  r('/document-library-detail-gitbook-qa/index', 'documentGitbookQa', ['document_list'], hidden),
  // Ours (authoring, not in the spec's table): titled from the authoring locale, gated by their own keys.
  { path: '/document-admin/index', titleKey: 'authoring.route.documentAdmin', keys: ['document_manage'], hidden: false },
  { path: '/notice-admin/index', titleKey: 'authoring.route.noticeAdmin', keys: ['notice_publish'], hidden: false },
  r('/organization-management/index', 'organizationManagement', ['org_list']),
  r('/firmware-version/index', 'firmwareVersion', ['img_list'], { group: 'firmware' }),
  r('/firmware-customize/index', 'firmwareCustomize', ['custom-made-img_list'], { group: 'firmware' }),
  r('/firmware-manage/firmware-coupon', 'firmwareCoupon', ['custom-made-img_push-log'], { group: 'firmware' }),
  r('/application-management/index', 'applicationManagement', ['app_list']),
  r('/file-management/index', 'fileManagement', ['file_list']),
  r('/logo-management/index', 'logoManagement', ['logo_list']),
  r('/background-manage/index', 'backgroundManage', ['wallpaper_list']),
  r('/device-management/index', 'deviceManagement', ['device_list']),
  // Ours (issue 23): the organisation's custom device fields (columns and filters of the device list).
  r('/device-field/index', 'deviceFields', ['device_field']),
  r('/device-view/index', 'deviceView', ['device_list'], hidden),
  r('/device-view/webssh', 'deviceWebssh', ['device_list'], hidden),
  r('/device-view/recording', 'recordingReplay', ['recording_list'], hidden),
  // Ours (issue 22): recorded shell and live-view sessions, and the organisation's recording policy.
  r('/recording-management/index', 'recordingList', ['recording_list']),
  r('/remote-management/index', 'remoteManagement', ['remote_list']),
  r('/log-management/index', 'logManagement', ['push_log_list']),
  // Ours: the push dialog as a hidden page, so other pages can link to it with devices chosen (content area).
  { path: '/content-push/index', titleKey: 'content.pushTitle', keys: ['img_push', 'app_push', 'file_push', 'logo_push', 'wallpaper_push'], hidden: true },
  r('/license-manage/index', 'licenseManage', ['iso-bus_list']),
  r('/order-query/index', 'orderQuery', ['link-card-order_list'], { noFooter: true }),
  r('/order-demand/index', 'orderDemand', ['order-requirements_list']),
  r('/true-point/account-manage', 'truePointAccount', [], { group: 'truePoint', hidden: true }),
  r('/true-point/equipment-manage', 'truePointEquipment', [], { group: 'truePoint', hidden: true }),
  r('/statistical-report/multi-model-analysis', 'multiModelAnalysis', ['report_multiModelAnalyse'], { group: 'report' }),
  r('/statistical-report/device-location-statistics', 'deviceLocationStatistics', ['report_locationmap'], { group: 'report' }),
  r('/statistical-report/device-map-distribution', 'deviceMapDistribution', ['report_locationmap'], { group: 'report', hidden: true }),
  r('/statistical-report/abnormal-statistics', 'abnormalStatistics', ['report_abnormal'], { group: 'report' }),
  r('/statistical-report/system-operation-log', 'systemOperationLog', ['report_operation_log'], { group: 'report' }),
  r('/statistical-report/platform-usage-statistics', 'platformUsageStatistics', ['report_statistics_usetime'], { group: 'report' }),
  r('/authority-manage/admin', 'authorityAdmin', ['managers_list', 'admin_list'], { group: 'authority' }),
  r('/authority-manage/role-manage', 'roleManage', ['role_list'], { group: 'authority' }),
  // Ours (issue 23): an organisation's webhooks; each account's API tokens, reached from the user menu.
  { path: '/integrations/webhooks', titleKey: 'integrations.route.webhooks', keys: ['webhook_manage'], group: 'authority', hidden: false },
  { path: '/integrations/api-tokens', titleKey: 'integrations.route.apiTokens', keys: [], hidden: true },
  { path: '/integrations/two-step', titleKey: 'integrations.route.twoStep', keys: [], hidden: true },
  // Ours (issue 23): four-eyes approval; approvers decide others' requests, those who can act on a device
  // (any command waits when sent in bulk over the organisation's size) or push see their own. Seeing
  // devices alone (device_list) makes no request, so it does not show the page.
  { path: '/approvals/index', titleKey: 'approvals.title', keys: ['approve_dangerous', ...DEVICE_ACTION_KEYS, 'remote_list', 'img_push', 'app_push', 'file_push', 'logo_push', 'wallpaper_push'], hidden: false },
  r('/spring-card-manage/spring-card-manage', 'springCardManage', ['springCard_list'], { group: 'sim' }),
  r('/custom-service/group-management', 'groupManagement', ['linkCard_linkCardDirectionGroupList'], { group: 'sim' }),
  r('/custom-service/group-config', 'groupConfig', ['linkCard_listDirectionalAddress'], { group: 'sim', hidden: true }),
  r('/sim-card-management/card-management', 'cardManagement', ['linkCard_listCardInfo'], { group: 'sim' }),
  r('/sim-card-management/sim-card-view', 'simCardView', ['linkCard_getCardDetail'], { group: 'sim', hidden: true }),
  r('/sim-card-management/intelligent-test', 'intelligentTest', ['linkCard_getCardDetail'], { group: 'sim' }),
  r('/sim-card-management/bill-query', 'billQuery', ['link-card-bill_list'], { group: 'sim' }),
  r('/pay-data/index', 'payData', [], { group: 'sim', hidden: true, noCache: true, noFooter: true }),
  r('/monthly-bill/index', 'monthlyBill', ['link-card-bill_detail-list'], { group: 'sim' }),
  r('/juxin-card-manage/index', 'juxinCardManage', ['zxj_list'], { group: 'sim' }),
  r('/juxin-pay-data/index', 'juxinPayData', [], { group: 'sim', hidden: true, noCache: true, noFooter: true }),
];

/** A public page outside the shell: reachable without a session (platform-core section 2, navigation guard). */
export interface PublicRoute {
  readonly path: string;
  readonly titleKey: string;
}

/** Public pages other than /login, /404 and /401; src/router/pages.ts maps those built (others show a placeholder). */
export const publicRoutes: readonly PublicRoute[] = [
  { path: '/auth-redirect', titleKey: 'route.authRedirect' },
  { path: '/gitbook', titleKey: 'route.gitbook' },
  { path: '/Introduction/', titleKey: 'route.introduction' },
  { path: '/order-demand-detail', titleKey: 'route.orderDemandDetail' },
  { path: '/isobus-activate', titleKey: 'route.isobusActivate' },
];

/** Home of the phone layout: the device list. */
export const MOBILE_HOME = '/device-management/index';

export function findShellRoute(path: string): ShellRoute | undefined {
  return shellRoutes.find((route) => route.path === path);
}

export function findPublicRoute(path: string): PublicRoute | undefined {
  return publicRoutes.find((route) => route.path === path);
}
