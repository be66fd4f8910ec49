import { Group, UnstyledButton } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link } from 'wouter';
import { areaOf, topNavEntries } from '../router/top-nav.ts';
import { session } from '../state/session.ts';
import { TopNavIcon } from './menu-icons.tsx';
import classes from './TopNav.module.css';
import { Tip } from './floating/deferred.tsx';

/** The top navigation: one entry per area the user may open; system management for the admin role only. */
export function TopNav({ activePath }: { activePath: string }) {
  const { t } = useTranslation();
  const { roles, permissions } = useSnapshot(session);
  const entries = useMemo(() => topNavEntries({ roles, permissions }), [roles, permissions]);
  const active = areaOf(activePath);
  return (
    <nav aria-label={t('topNav.label')} data-testid="top-nav">
      <Group gap={2} wrap="nowrap">
        {entries.map(({ area, to }) => (
          <Tip key={area.id} label={t(area.titleKey)} openDelay={400}>
            <UnstyledButton component={Link} href={to} className={classes.entry} data-active={area.id === active || undefined} aria-label={t(area.titleKey)} data-testid={`top-nav-${area.id}`}>
              <span className={classes.icon}>
                <TopNavIcon id={area.id} />
              </span>
              <span className={classes.label}>{t(area.titleKey)}</span>
            </UnstyledButton>
          </Tip>
        ))}
      </Group>
    </nav>
  );
}
