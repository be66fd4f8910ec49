import { EmptyState, Paper, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { HourglassIcon } from '../../layout/icons.tsx';

/** The list page of an area that arrives in a later release: its title and an empty state, never a blank screen. */
export function AreaPlaceholder({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <>
      <Title order={3} mb="md">
        {t(titleKey)}
      </Title>
      <Paper withBorder p="xl" data-testid="area-placeholder">
        <EmptyState icon={<HourglassIcon size={32} />} variant="light" title={t('placeholder.title')} description={t('placeholder.description')} />
      </Paper>
    </>
  );
}
