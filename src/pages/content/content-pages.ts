import type { ComponentType } from 'react';
import { ApplicationPage, FilePage, FirmwareVersionPage, LogoPage, WallpaperPage } from './ContentPage.tsx';
import { CustomFirmwarePage } from './CustomFirmwarePage.tsx';
import { CouponPage, PushLogPage, PushPage } from './PushPages.tsx';

/** The content area's pages by route path (src/router/pages.ts spreads this in). */
export const contentPages: Readonly<Record<string, ComponentType>> = {
  '/firmware-version/index': FirmwareVersionPage,
  '/firmware-customize/index': CustomFirmwarePage,
  '/firmware-manage/firmware-coupon': CouponPage,
  '/application-management/index': ApplicationPage,
  '/file-management/index': FilePage,
  '/logo-management/index': LogoPage,
  '/background-manage/index': WallpaperPage,
  '/log-management/index': PushLogPage,
  '/content-push/index': PushPage,
};
