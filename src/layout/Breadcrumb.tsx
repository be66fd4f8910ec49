import { Breadcrumbs, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { breadcrumb } from '../router/menu.ts';
import type { ShellRoute } from '../router/routes.ts';

/** Where the page sits: its group, then the page. */
export function Breadcrumb({ route }: { route: ShellRoute }) {
  const { t } = useTranslation();
  const keys = breadcrumb(route);
  return (
    <nav aria-label={t('shell.breadcrumb')} data-testid="breadcrumb">
      <Breadcrumbs separator="/" separatorMargin={6}>
        {keys.map((key, i) => (
          <Text key={key} size="sm" c={i === keys.length - 1 ? undefined : 'dimmed'} aria-current={i === keys.length - 1 ? 'page' : undefined}>
            {t(key)}
          </Text>
        ))}
      </Breadcrumbs>
    </nav>
  );
}
