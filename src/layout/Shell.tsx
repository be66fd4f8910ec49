import { AppShell, Badge, Burger, Group, NavLink, Select, Text, Title, UnstyledButton, Menu } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link, useLocation } from 'wouter';
import { currentLanguage, switchLanguage } from '../i18n/index.ts';
import type { Language } from '../i18n/language.ts';
import { realtimeState } from '../realtime/realtime.ts';
import { canReach, shellRoutes } from '../router/routes.ts';
import { logout } from '../state/bootstrap.ts';
import { session } from '../state/session.ts';

/** Spec sizes: sidebar 210 px, nav bar 60 px. */
const SIDEBAR_WIDTH = 210;
const NAVBAR_HEIGHT = 60;

const statusColor = { open: 'green', connecting: 'yellow', backoff: 'orange', stopped: 'gray', idle: 'gray' } as const;

/** The authenticated layout: top bar, permission-filtered sidebar (open state remembered) and the page. */
export function Shell({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [location, navigate] = useLocation();
  const snap = useSnapshot(session);
  const rt = useSnapshot(realtimeState);
  const [opened, setOpened] = useLocalStorage({ key: 'sidebarStatus', defaultValue: true });
  const routes = shellRoutes.filter((r) => canReach(r, snap.roles, snap.permissions));

  return (
    <AppShell header={{ height: NAVBAR_HEIGHT }} navbar={{ width: opened ? SIDEBAR_WIDTH : 60, breakpoint: 0 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={() => setOpened(!opened)} size="sm" aria-label="toggle sidebar" />
            <Title order={4}>{t('app.title')}</Title>
          </Group>
          <Group>
            <Badge color={statusColor[rt.status]} variant="light" data-testid="realtime-status">
              {t(`shell.realtime.${rt.status}`)}
            </Badge>
            <Select
              aria-label={t('shell.language')}
              w={110}
              size="xs"
              value={currentLanguage}
              data={[
                { value: 'zh', label: '中文' },
                { value: 'en', label: 'English' },
              ]}
              onChange={(v) => v && v !== currentLanguage && switchLanguage(v as Language)}
              allowDeselect={false}
            />
            <Menu>
              <Menu.Target>
                <UnstyledButton data-testid="user-menu">
                  <Text size="sm">{snap.user?.nickname || snap.user?.account}</Text>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={() => void logout().finally(() => navigate('/login'))}>{t('shell.logout')}</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        {routes.map((r) => (
          <NavLink key={r.path} component={Link} href={r.path} label={opened ? t(r.titleKey) : t(r.titleKey).slice(0, 2)} active={location === r.path} />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
