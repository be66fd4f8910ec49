import type { ComponentType } from 'react';
import { IsobusActivatePage, LicenceManagePage } from './LicencePages.tsx';
import { MonthlyBillPage } from './MonthlyBillPage.tsx';
import { OrderDemandDetailPage, OrderDemandPage } from './OrderDemandPages.tsx';
import { BillQueryPage, OrderQueryPage } from './OrderListPage.tsx';
import { JuxinPayDataPage, LinkPayDataPage } from './PayDataPage.tsx';

/** Bill, order and payment pages by route path, spread into src/router/pages.ts. */
export const commercePages: Readonly<Record<string, ComponentType>> = {
  '/sim-card-management/bill-query': BillQueryPage,
  '/pay-data/index': LinkPayDataPage,
  '/monthly-bill/index': MonthlyBillPage,
  '/juxin-pay-data/index': JuxinPayDataPage,
  '/order-query/index': OrderQueryPage,
  '/license-manage/index': LicenceManagePage,
  '/order-demand/index': OrderDemandPage,
};

/** Public pages of this area (outside the shell, no session), for src/App.tsx's public routes. */
export const commercePublicPages: Readonly<Record<string, ComponentType>> = {
  '/isobus-activate': IsobusActivatePage,
  '/order-demand-detail': OrderDemandDetailPage,
};
