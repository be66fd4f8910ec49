import { AppShell, Box, Text } from '@mantine/core';
import { lazy, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { affixRoutes } from '../router/menu.ts';
import type { ShellRoute } from '../router/routes.ts';
import { layout } from '../state/layout.ts';
import { passwordDialog } from '../state/password-dialog.ts';
import { reminder } from '../state/remind.ts';
import { session } from '../state/session.ts';
import { withPageAssets } from '../router/page-assets.ts';
import { Breadcrumb } from './Breadcrumb.tsx';
import { CachedViews } from './CachedViews.tsx';
import { loadFloating } from './floating/deferred.tsx';
import { NavBar } from './NavBar.tsx';
import { OnDemand } from './OnDemand.tsx';
import classes from './Shell.module.css';
import { Sidebar } from './Sidebar.tsx';
import { visitTag } from './tags-view/store.ts';
import { tagOf } from './tags-view/tags.ts';
import { TagsView } from './tags-view/TagsView.tsx';

/** Sidebar width (platform-core section 2) and its collapsed width. */
export const SIDEBAR_WIDTH = 210;
export const SIDEBAR_COLLAPSED_WIDTH = 60;

/** The copyright footer, hidden on the routes that say so (pay-data and order-query). */
function Footer() {
  const { t } = useTranslation();
  return (
    <Text component="footer" size="xs" c="dimmed" ta="center" py="sm" data-testid="footer">
      {t('topBar.footer', { year: new Date().getFullYear() })}
    </Text>
  );
}

const SettingsPanel = lazy(() => withPageAssets(() => import('./SettingsPanel.tsx')).then((m) => ({ default: m.SettingsPanel })));
const ChangePasswordDialog = lazy(() => withPageAssets(() => import('./ChangePasswordDialog.tsx')).then((m) => ({ default: m.ChangePasswordDialog })));
const Reminders = lazy(() => withPageAssets(() => import('./Reminders.tsx')).then((m) => ({ default: m.Reminders })));

/** The authenticated layout: sidebar, nav bar, tags view, breadcrumb, the kept pages, footer and the settings panel. */
export function Shell({ route, fullPath }: { route: ShellRoute; fullPath: string }) {
  const { sidebarOpened, settings, settingsOpened } = useSnapshot(layout);
  const passwordOpened = useSnapshot(passwordDialog).opened;
  const { passwordDue } = useSnapshot(reminder);
  const { roles, permissions } = useSnapshot(session);

  // Every page shown in the shell becomes a tag, after the affix tags the user may open.
  useEffect(() => {
    const affix = affixRoutes({ roles, permissions }).map((r) => tagOf(r.path, r.path, r));
    visitTag(tagOf(route.path, fullPath, route), affix);
  }, [route, fullPath, roles, permissions]);

  return (
    // The menus and tooltips load with the first pointer, touch or focus event (floating/deferred.tsx).
    <AppShell navbar={{ width: sidebarOpened ? SIDEBAR_WIDTH : SIDEBAR_COLLAPSED_WIDTH, breakpoint: 0 }} padding={0} onPointerOver={loadFloating} onTouchStart={loadFloating} onFocus={loadFloating}>
      <AppShell.Navbar className={classes.navbar} data-opened={sidebarOpened || undefined}>
        <Sidebar activePath={route.path} />
      </AppShell.Navbar>
      <AppShell.Main className={classes.main} data-testid="shell-main">
        <Box className={classes.header} data-fixed={settings.fixedHeader || undefined} data-testid="shell-header">
          <NavBar route={route} />
          {settings.tagsView && <TagsView activePath={route.path} />}
        </Box>
        <Box p="md" className={classes.page} data-testid="shell-page">
          <Box mb="sm">
            <Breadcrumb route={route} />
          </Box>
          <CachedViews route={route} />
        </Box>
        {!route.noFooter && <Footer />}
      </AppShell.Main>
      <OnDemand when={settingsOpened}>
        <SettingsPanel />
      </OnDemand>
      <OnDemand when={passwordOpened}>
        <ChangePasswordDialog />
      </OnDemand>
      <OnDemand when={passwordDue}>
        <Reminders />
      </OnDemand>
    </AppShell>
  );
}
