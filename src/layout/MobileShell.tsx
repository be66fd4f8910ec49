import { ActionIcon, AppShell, Box, Group, Indicator, Menu, Text, UnstyledButton } from '@mantine/core';
import type { ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link, useLocation } from 'wouter';
import { MobileDeviceDetail } from '../pages/mobile/MobileDeviceDetail.tsx';
import { MobileDeviceList } from '../pages/mobile/MobileDeviceList.tsx';
import { AreaPlaceholder } from '../pages/placeholder/AreaPlaceholder.tsx';
import { canReach } from '../router/menu.ts';
import { builtPages } from '../router/pages.ts';
import { findShellRoute, type ShellRoute } from '../router/routes.ts';
import { logout } from '../state/bootstrap.ts';
import { setLayoutMode } from '../state/layout.ts';
import { notices } from '../state/notices.ts';
import { openPasswordDialog } from '../state/password-dialog.ts';
import { session } from '../state/session.ts';
import { ChangePasswordDialog } from './ChangePasswordDialog.tsx';
import { BellIcon, ChevronDownIcon } from './icons.tsx';
import classes from './MobileShell.module.css';
import { Reminders } from './Reminders.tsx';

export { MOBILE_HOME } from '../router/routes.ts';

/**
 * The phone layout's pages by route path: the same routes as the desktop, with a phone-sized page where
 * the desktop one is a wide table. Any other route shows its desktop page in the phone frame.
 */
const phonePages: Readonly<Record<string, ComponentType>> = {
  '/device-management/index': MobileDeviceList,
  '/device-view/index': MobileDeviceDetail,
};

const tabs = [
  { path: '/device-management/index', titleKey: 'mobile.devices' },
  { path: '/user-notice/index', titleKey: 'mobile.notices' },
] as const;

/** The phone layout (the login page's mobile-version link): a header, the page, and a bottom tab bar. */
export function MobileShell({ route }: { route: ShellRoute }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const snap = useSnapshot(session);
  const { unread } = useSnapshot(notices);
  const Page = phonePages[route.path] ?? builtPages[route.path];
  const reachable = tabs.filter((tab) => {
    const r = findShellRoute(tab.path);
    return r !== undefined && canReach(r, snap);
  });

  return (
    <AppShell header={{ height: 52 }} footer={{ height: 56 }} padding="sm" data-testid="mobile-shell">
      <AppShell.Header>
        <Group h="100%" px="sm" justify="space-between" wrap="nowrap">
          <Text fw={700} truncate>
            {t(route.titleKey)}
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Indicator label={unread > 99 ? '99+' : unread} size={16} disabled={unread === 0} color="red" offset={4}>
              <ActionIcon variant="subtle" color="gray" component={Link} href="/user-notice/index" aria-label={t('notice.bell', { count: unread })}>
                <BellIcon />
              </ActionIcon>
            </Indicator>
            <Menu position="bottom-end">
              <Menu.Target>
                <UnstyledButton data-testid="mobile-user-menu">
                  <Group gap={2} wrap="nowrap">
                    <Text size="sm" truncate maw={110}>
                      {snap.user?.nickname || snap.user?.account}
                    </Text>
                    <ChevronDownIcon size={14} />
                  </Group>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={openPasswordDialog}>{t('password.title')}</Menu.Item>
                <Menu.Item
                  onClick={() => {
                    setLayoutMode('desktop');
                    navigate('/dashboard/index');
                  }}
                  data-testid="mobile-to-desktop"
                >
                  {t('mobile.desktop')}
                </Menu.Item>
                <Menu.Item onClick={() => void logout()}>{t('mobile.logout')}</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Box className={classes.page}>{Page ? <Page /> : <AreaPlaceholder titleKey={route.titleKey} />}</Box>
      </AppShell.Main>
      <AppShell.Footer>
        <Group h="100%" grow gap={0} component="nav" aria-label={t('shell.menu')}>
          {reachable.map((tab) => (
            <UnstyledButton key={tab.path} component={Link} href={tab.path} className={classes.tab} data-active={route.path === tab.path || undefined} data-testid={`mobile-tab-${tab.path.split('/')[1]}`}>
              {t(tab.titleKey)}
            </UnstyledButton>
          ))}
        </Group>
      </AppShell.Footer>
      <ChangePasswordDialog />
      <Reminders />
    </AppShell>
  );
}
