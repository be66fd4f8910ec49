import { Group, UnstyledButton } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link } from 'wouter';
import { areaOf, topNavEntries } from '../router/top-nav.ts';
import { session } from '../state/session.ts';
import classes from './TopNav.module.css';

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
          <UnstyledButton key={area.id} component={Link} href={to} className={classes.entry} data-active={area.id === active || undefined} data-testid={`top-nav-${area.id}`}>
            {t(area.titleKey)}
          </UnstyledButton>
        ))}
      </Group>
    </nav>
  );
}
