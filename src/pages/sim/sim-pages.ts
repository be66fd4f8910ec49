import type { ComponentType } from 'react';
import { JuxinCardPage, LinkCardPage, SpringCardPage } from './CardListPage.tsx';
import { GroupConfigPage, GroupManagementPage } from './GroupPages.tsx';
import { IntelligentTestPage, SimCardViewPage } from './SimCardViewPage.tsx';

/** The SIM group's pages by route path (src/router/routes.ts), spread into src/router/pages.ts. */
export const simPages: Readonly<Record<string, ComponentType>> = {
  '/spring-card-manage/spring-card-manage': SpringCardPage,
  '/custom-service/group-management': GroupManagementPage,
  '/custom-service/group-config': GroupConfigPage,
  '/sim-card-management/card-management': LinkCardPage,
  '/sim-card-management/sim-card-view': SimCardViewPage,
  '/sim-card-management/intelligent-test': IntelligentTestPage,
  '/juxin-card-manage/index': JuxinCardPage,
};
