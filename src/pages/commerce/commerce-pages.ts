import type { ComponentType } from 'react';
import { IsobusActivatePage, LicenceManagePage } from './LicencePages.tsx';
import { MonthlyBillPage } from './MonthlyBillPage.tsx';
import { OrderDemandDetailPage, OrderDemandPage } from './OrderDemandPages.tsx';
import { BillQueryPage, OrderQueryPage } from './OrderListPage.tsx';
import { JuxinPayDataPage, LinkPayDataPage } from './PayDataPage.tsx';
import { TruePointAccountPage, TruePointEquipmentPage } from './TruePointPages.tsx';

/** Bill, order, payment, licence, order-demand and true-point pages by route path, spread into src/router/pages.ts. */
export const commercePages: Readonly<Record<string, ComponentType>> = {
  '/sim-card-management/bill-query': BillQueryPage,
  '/pay-data/index': LinkPayDataPage,
  '/monthly-bill/index': MonthlyBillPage,
  '/juxin-pay-data/index': JuxinPayDataPage,
  '/order-query/index': OrderQueryPage,
  '/license-manage/index': LicenceManagePage,
  '/order-demand/index': OrderDemandPage,
  '/true-point/account-manage': TruePointAccountPage,
  '/true-point/equipment-manage': TruePointEquipmentPage,
};

/** Public pages of this area (outside the shell, no session), for src/App.tsx's public routes. */
export const commercePublicPages: Readonly<Record<string, ComponentType>> = {
  '/isobus-activate': IsobusActivatePage,
  '/order-demand-detail': OrderDemandDetailPage,
};
