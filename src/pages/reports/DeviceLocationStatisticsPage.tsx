import { Badge, Button, Card, Group, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { reportApi } from '../../api/reports.ts';
import { countryName } from './countries.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
import { Chart } from './Chart.tsx';
import { WorldMap } from './WorldMap.tsx';

/** Device location statistics (report_locationmap): devices by country and region, coverage and a map preview. */
export function DeviceLocationStatisticsPage() {
  const { t, i18n } = useTranslation();
  const [, navigate] = useLocation();
  const [filter, setFilter] = useState(defaultToolbarValue);
  const report = useReport(() => reportApi.location(filter), [filter]);
  const map = useReport(() => reportApi.map(filter, 0), [filter]);
  const labels = useMemo(() => report?.countries.map((c) => c.country) ?? [], [report]);
  const series = useMemo(() => (report ? [{ label: t('reports.location.devices'), values: report.countries.map((c) => c.devices) }] : []), [report, t]);

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
      <Table highlightOnHover data-testid="report-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('reports.location.country')}</Table.Th>
            <Table.Th>{t('reports.location.region')}</Table.Th>
            <Table.Th>{t('reports.location.devices')}</Table.Th>
            <Table.Th>{t('reports.location.online')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {report?.regions.map((r) => (
            <Table.Tr key={`${r.country}/${r.region}`}>
              <Table.Td>
                {r.country} {countryName(r.country, i18n.language)}
              </Table.Td>
              <Table.Td>{r.region}</Table.Td>
              <Table.Td>{r.devices}</Table.Td>
              <Table.Td>{r.online}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {report?.regions.length === 0 && (
        <Text ta="center" c="dimmed" my="lg" data-testid="table-empty">
          {t('reports.empty')}
        </Text>
      )}
    </>
  );
}
