import { ActionIcon, Badge, Burger, Divider, Group, Indicator, Text, Title, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { useLocation } from 'wouter';
import { authApi } from '../api/auth.ts';
import { currentLanguage, switchLanguage } from '../i18n/index.ts';
import { type Language, languageCode } from '../i18n/language.ts';
import { useRealtimeStatus } from '../devices/hooks.ts';
import type { ShellRoute } from '../router/routes.ts';
import { logout } from '../state/bootstrap.ts';
import { layout, setSettingsOpened, toggleSidebar } from '../state/layout.ts';
import { notices } from '../state/notices.ts';
import { openPasswordDialog } from '../state/password-dialog.ts';
import { session } from '../state/session.ts';
import { DeferredMenu, DeferredSelect } from './floating/deferred.tsx';
import { BellIcon, GearIcon } from './icons.tsx';
import classes from './NavBar.module.css';
import { TopBarAccount } from './TopBarAccount.tsx';
import { TopNav } from './TopNav.tsx';

/** Nav bar height (platform-core section 2). */
export const NAVBAR_HEIGHT = 60;

const statusColor = { open: 'green', connecting: 'yellow', backoff: 'orange', stopped: 'gray', idle: 'gray' } as const;

/** Tells the server first (its labels follow the account's language), then reloads in the new language. */
async function changeLanguage(lang: Language): Promise<void> {
  await authApi.modifyLanguage(languageCode[lang]).catch(() => undefined);
  switchLanguage(lang);
}

/** The top bar: sidebar toggle, product title, top navigation, account expiry and customer type, live status, language, bell, user menu and settings. */
export function NavBar({ route }: { route: ShellRoute }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const snap = useSnapshot(session);
  const realtimeStatus = useRealtimeStatus();
  const { sidebarOpened } = useSnapshot(layout);
  const { unread } = useSnapshot(notices);

  return (
    <Group h={NAVBAR_HEIGHT} px="md" justify="space-between" wrap="nowrap" data-testid="top-bar" bg="var(--mantine-color-body)" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
      <Group wrap="nowrap" gap="sm" className={classes.left}>
        <Burger opened={sidebarOpened} onClick={toggleSidebar} size="sm" aria-label={t('shell.toggleSidebar')} />
        <Title order={4} className={classes.title}>
          {t('app.title')}
        </Title>
        <Divider orientation="vertical" />
        <TopNav activePath={route.path} />
      </Group>
      <Group wrap="nowrap" gap="sm" className={classes.right}>
        <TopBarAccount />
        <Badge color={statusColor[realtimeStatus]} variant="light" data-testid="realtime-status" data-status={realtimeStatus}>
          {t(`shell.realtime.${realtimeStatus}`)}
        </Badge>
        <DeferredSelect
          aria-label={t('shell.language')}
          w={110}
          size="xs"
          value={currentLanguage}
          data={[
            { value: 'zh', label: '中文' },
            { value: 'en', label: 'English' },
          ]}
          onChange={(v) => v && v !== currentLanguage && void changeLanguage(v as Language)}
          allowDeselect={false}
        />
        <Indicator label={unread > 99 ? '99+' : unread} size={16} disabled={unread === 0} color="red" offset={4}>
          <ActionIcon variant="subtle" color="gray" onClick={() => navigate('/user-notice/index')} aria-label={t('notice.bell', { count: unread })} data-testid="notice-bell">
            <BellIcon />
          </ActionIcon>
        </Indicator>
        <DeferredMenu
          target={
            <UnstyledButton data-testid="user-menu">
              <Text size="sm" className={classes.user}>
                {snap.user?.nickname || snap.user?.account}
              </Text>
            </UnstyledButton>
          }
          dropdown={(Menu) => (
            <Menu.Dropdown>
              <Menu.Item onClick={openPasswordDialog} data-testid="change-password">
                {t('password.title')}
              </Menu.Item>
              <Menu.Item onClick={() => navigate('/integrations/api-tokens')} data-testid="api-tokens">
                {t('integrations.route.apiTokens')}
              </Menu.Item>
              <Menu.Item onClick={() => navigate('/integrations/two-step')} data-testid="two-step">
                {t('integrations.route.twoStep')}
              </Menu.Item>
              <Menu.Item onClick={() => void logout()}>{t('shell.logout')}</Menu.Item>
            </Menu.Dropdown>
          )}
        />
        <ActionIcon variant="subtle" color="gray" onClick={() => setSettingsOpened(true)} aria-label={t('settings.open')} data-testid="settings-open">
          <GearIcon />
        </ActionIcon>
      </Group>
    </Group>
  );
}
