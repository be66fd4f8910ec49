import { Badge, Button, Card, Group, SimpleGrid, Text, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import type { LocationReport } from '../../../protocol/api/reports.ts';
import { reportApi } from '../../api/reports.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { countryName } from './countries.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
import { Chart } from './Chart.tsx';
import { WorldMap } from './WorldMap.tsx';

type RegionRow = LocationReport['regions'][number];
const REGION_SORT: SortValues<RegionRow> = { country: (r) => r.country, region: (r) => r.region, devices: (r) => r.devices, online: (r) => r.online };

/** Device location statistics (report_locationmap): devices by country and region, coverage and a map preview. */
export function DeviceLocationStatisticsPage() {
  const { t, i18n } = useTranslation();
  const [, navigate] = useLocation();
  const [filter, setFilter] = useState(defaultToolbarValue);
  const report = useReport(() => reportApi.location(filter), [filter]);
  const map = useReport(() => reportApi.map(filter, 0), [filter]);
  const labels = useMemo(() => report?.countries.map((c) => c.country) ?? [], [report]);
  const series = useMemo(() => (report ? [{ label: t('reports.location.devices'), values: report.countries.map((c) => c.devices) }] : []), [report, t]);

  // The server answers the regions whole: the table pages and sorts them here.
  const load = useCallback(async (q: ListQuery) => localPage(report?.regions ?? [], q, REGION_SORT), [report]);
  const columns: DataColumn<RegionRow>[] = [
    { key: 'country', title: t('reports.location.country'), fixed: true, sortable: true, render: (r) => `${r.country} ${countryName(r.country, i18n.language)}` },
    { key: 'region', title: t('reports.location.region'), sortable: true, render: (r) => r.region },
    { key: 'devices', title: t('reports.location.devices'), sortable: true, render: (r) => r.devices },
    { key: 'online', title: t('reports.location.online'), sortable: true, render: (r) => r.online },
  ];

  return (
    <>
      <Title order={3} mb="md">
        {t('route.deviceLocationStatistics')}
      </Title>
      <ReportToolbar value={filter} onChange={setFilter} withPeriod={false} withRange={false} onExport={(format, lang) => reportApi.export('location', format, filter, lang)}>
        <Button variant="light" onClick={() => navigate('/statistical-report/device-map-distribution')} data-testid="open-map">
          {t('reports.location.openMap')}
        </Button>
      </ReportToolbar>
      <Group mb="md" gap="lg">
        <Text>
          {t('reports.location.located')}: <b data-testid="located">{report?.located ?? '—'}</b>
        </Text>
        <Text>
          {t('reports.location.unlocated')}: <b>{report?.unlocated ?? '—'}</b>
        </Text>
      </Group>
      <Card withBorder mb="md">
        <Text fw={600} mb="xs">
          {t('reports.location.coverage')}
        </Text>
        <Group gap={6} data-testid="coverage">
          {report?.countries.map((c) => (
            <Badge key={c.country} variant="light" size="lg" tt="none" leftSection={<b>{c.country}</b>}>
              {countryName(c.country, i18n.language)} {c.devices}
            </Badge>
          ))}
        </Group>
      </Card>
      <SimpleGrid cols={{ base: 1, lg: 2 }} mb="md">
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.location.chart')}
          </Text>
          {report && <Chart testId="chart-countries" labels={labels} series={series} kind="bars" integers />}
        </Card>
        <Card withBorder>{map && <WorldMap points={map.points} height={300} interactive={false} />}</Card>
      </SimpleGrid>
      <DataTable id="report-location" testId="report-table" columns={columns} rowKey={(r) => `${r.country}/${r.region}`} load={load} emptyText={t('reports.empty')} />
    </>
  );
}
