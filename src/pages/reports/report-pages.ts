import type { ComponentType } from 'react';
import { AbnormalStatisticsPage } from './AbnormalStatisticsPage.tsx';
import { DeviceLocationStatisticsPage } from './DeviceLocationStatisticsPage.tsx';
import { DeviceMapDistributionPage } from './DeviceMapDistributionPage.tsx';
import { MultiModelAnalysisPage } from './MultiModelAnalysisPage.tsx';
import { PlatformUsageStatisticsPage } from './PlatformUsageStatisticsPage.tsx';
import { SystemOperationLogPage } from './SystemOperationLogPage.tsx';

/** The report group's pages by route (src/router/routes.ts lists them with their permission keys). */
export const reportPages: Readonly<Record<string, ComponentType>> = {
  '/statistical-report/multi-model-analysis': MultiModelAnalysisPage,
  '/statistical-report/device-location-statistics': DeviceLocationStatisticsPage,
  '/statistical-report/device-map-distribution': DeviceMapDistributionPage,
  '/statistical-report/abnormal-statistics': AbnormalStatisticsPage,
  '/statistical-report/system-operation-log': SystemOperationLogPage,
  '/statistical-report/platform-usage-statistics': PlatformUsageStatisticsPage,
};
