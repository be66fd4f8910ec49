import { createElement } from 'react';
import {
  IconAdjustments,
  IconAlertTriangle,
  IconApps,
  IconArticle,
  IconBell,
  IconBook,
  IconCalendarDollar,
  IconCards,
  IconChartBar,
  IconChartLine,
  IconChartPie,
  IconCloudUpload,
  IconCpu,
  IconCreditCard,
  IconDeviceAnalytics,
  IconDeviceDesktop,
  IconDevices,
  IconVideo,
  IconDeviceSim,
  IconFileInvoice,
  IconFolder,
  IconForms,
  IconHistory,
  IconInfoCircle,
  IconLayoutDashboard,
  IconLicense,
  IconListDetails,
  IconLogs,
  IconMapPin,
  IconNotes,
  IconPackage,
  IconPhoto,
  IconReceipt,
  IconSettings,
  IconShieldCheck,
  IconShieldLock,
  IconShoppingCart,
  IconSitemap,
  IconSpeakerphone,
  IconTestPipe,
  IconTicket,
  IconUsers,
  IconUserShield,
  IconWallpaper,
  IconWebhook,
  type Icon,
} from '@tabler/icons-react';
import type { TopNavId } from '../router/top-nav.ts';
import type { GroupId } from '../router/routes.ts';

/**
 * The sidebar's icons, by route path and by group (the collapsed sidebar shows only these; they replaced
 * two-letter stubs). Kept beside the layout rather than in router/routes.ts so the route table stays plain
 * data; src/layout/menu-icons.test.ts checks that every sidebar entry has one.
 */
export const routeIcons: Readonly<Record<string, Icon>> = {
  '/dashboard/index': IconLayoutDashboard,
  '/integrations/webhooks': IconWebhook,
  '/approvals/index': IconShieldCheck,
  '/user-notice/index': IconBell,
  '/document-library/index': IconBook,
  '/document-admin/index': IconArticle,
  '/notice-admin/index': IconSpeakerphone,
  '/organization-management/index': IconSitemap,
  '/firmware-version/index': IconCpu,
  '/firmware-customize/index': IconAdjustments,
  '/firmware-manage/firmware-coupon': IconTicket,
  '/application-management/index': IconApps,
  '/file-management/index': IconFolder,
  '/logo-management/index': IconPhoto,
  '/background-manage/index': IconWallpaper,
  '/device-management/index': IconDevices,
  '/device-field/index': IconForms,
  '/remote-management/index': IconDeviceDesktop,
  '/recording-management/index': IconVideo,
  '/log-management/index': IconLogs,
  '/license-manage/index': IconLicense,
  '/order-query/index': IconReceipt,
  '/order-demand/index': IconShoppingCart,
  '/statistical-report/multi-model-analysis': IconChartPie,
  '/statistical-report/device-location-statistics': IconMapPin,
  '/statistical-report/abnormal-statistics': IconAlertTriangle,
  '/statistical-report/system-operation-log': IconHistory,
  '/statistical-report/platform-usage-statistics': IconChartLine,
  '/authority-manage/admin': IconUserShield,
  '/authority-manage/role-manage': IconUsers,
  '/spring-card-manage/spring-card-manage': IconCards,
  '/custom-service/group-management': IconListDetails,
  '/sim-card-management/card-management': IconCreditCard,
  '/sim-card-management/intelligent-test': IconTestPipe,
  '/sim-card-management/bill-query': IconFileInvoice,
  '/monthly-bill/index': IconCalendarDollar,
  '/juxin-card-manage/index': IconNotes,
};

export const groupIcons: Readonly<Record<GroupId, Icon>> = {
  firmware: IconPackage,
  report: IconChartBar,
  authority: IconShieldLock,
  sim: IconDeviceSim,
  truePoint: IconMapPin,
};

/** The top navigation's areas: shown instead of their titles when the top bar is narrow. */
export const topNavIcons: Readonly<Record<TopNavId, Icon>> = {
  monitor: IconDeviceAnalytics,
  analysis: IconChartBar,
  basicInfo: IconInfoCircle,
  charts: IconChartPie,
  system: IconSettings,
};

/** An icon for any route (a page added to the table before it is given one still shows something). */
export const iconOf = (path: string): Icon => routeIcons[path] ?? IconCloudUpload;

/** A route's icon as an element (createElement: the icon component is looked up, not declared, here). */
export function RouteIcon({ path, size = 18 }: { path: string; size?: number }) {
  return createElement(iconOf(path), { size, stroke: 1.6, 'aria-hidden': true });
}

export function GroupIcon({ id, size = 18 }: { id: GroupId; size?: number }) {
  return createElement(groupIcons[id], { size, stroke: 1.6, 'aria-hidden': true });
}

export function TopNavIcon({ id, size = 18 }: { id: TopNavId; size?: number }) {
  return createElement(topNavIcons[id], { size, stroke: 1.6, 'aria-hidden': true });
}
