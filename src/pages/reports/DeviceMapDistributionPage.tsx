import { Card, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { reportApi } from '../../api/reports.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
import { WorldMap } from './WorldMap.tsx';

/** Device map distribution (hidden route, report_locationmap): the whole fleet clustered on a world map. */
export function DeviceMapDistributionPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState(defaultToolbarValue);
  const [level, setLevel] = useState(0);
  const map = useReport(() => reportApi.map(filter, level), [filter, level]);
  return (
    <>
      <Title order={3} mb="md">
        {t('reports.map.title')}
      </Title>
      <ReportToolbar value={filter} onChange={setFilter} withPeriod={false} withRange={false} />
      <Card withBorder>
        <Text size="sm" c="dimmed" mb="xs" data-testid="map-summary">
          {map ? t('reports.map.devicesShown', { count: map.devices, points: map.points.length }) : t('reports.loading')}
        </Text>
        <WorldMap points={map?.points ?? []} height={560} onZoom={setLevel} />
      </Card>
    </>
  );
}
