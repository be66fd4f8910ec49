import { Badge, Card, Group, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { reportApi } from '../../api/reports.ts';
import { formatPercent } from './format.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
import { Chart } from './Chart.tsx';

/** Multi-model analysis (report_multiModelAnalyse): online rate per model over time, age buckets, table. */
export function MultiModelAnalysisPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState(defaultToolbarValue);
  const report = useReport(() => reportApi.multiModel(filter), [filter]);
  const labels = useMemo(() => report?.buckets.map((b) => b.key) ?? [], [report]);
  const series = useMemo(() => report?.series.map((s) => ({ label: s.model, values: s.onlineRate })) ?? [], [report]);
  const ageLabels = useMemo(() => report?.ages.map((a) => t(`reports.age.${a.bucket}`)) ?? [], [report, t]);
  const ageSeries = useMemo(() => (report ? [{ label: t('reports.multiModel.devices'), values: report.ages.map((a) => a.count) }] : []), [report, t]);

  return (
    <>
      <Title order={3} mb="md">
        {t('route.multiModelAnalysis')}
      </Title>
      <ReportToolbar value={filter} onChange={setFilter} onExport={(format, lang) => reportApi.export('multi-model', format, filter, lang)} />
      <SimpleGrid cols={{ base: 1, lg: 2 }} mb="md">
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.multiModel.onlineRateChart')}
          </Text>
          {report && <Chart testId="chart-online-rate" labels={labels} series={series} format={formatPercent} yMin={0} yMax={100} skipLabels />}
        </Card>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.multiModel.ageChart')}
          </Text>
          {report && <Chart testId="chart-ages" labels={ageLabels} series={ageSeries} kind="bars" integers />}
        </Card>
      </SimpleGrid>
      <Table highlightOnHover data-testid="report-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('reports.multiModel.model')}</Table.Th>
            <Table.Th>{t('reports.multiModel.devices')}</Table.Th>
            <Table.Th>{t('reports.multiModel.online')}</Table.Th>
            <Table.Th>{t('reports.multiModel.onlineRate')}</Table.Th>
            <Table.Th>{t('reports.multiModel.periodOnlineRate')}</Table.Th>
            <Table.Th>{t('reports.multiModel.avgCpu')}</Table.Th>
            <Table.Th>{t('reports.multiModel.avgMemory')}</Table.Th>
            <Table.Th>{t('reports.multiModel.versions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {report?.models.map((m) => (
            <Table.Tr key={m.model} data-model={m.model}>
              <Table.Td>{m.model}</Table.Td>
              <Table.Td>{m.total}</Table.Td>
              <Table.Td>{m.online}</Table.Td>
              <Table.Td>{formatPercent(m.onlineRate)}</Table.Td>
              <Table.Td>{formatPercent(m.periodOnlineRate)}</Table.Td>
              <Table.Td>{formatPercent(m.avgCpu)}</Table.Td>
              <Table.Td>{formatPercent(m.avgMemory)}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {m.versions.slice(0, 6).map((v) => (
                    <Badge key={v.version} variant="light" size="sm">
                      {v.version} × {v.count}
                    </Badge>
                  ))}
                  {m.versions.length > 6 && <Text size="xs">+{m.versions.length - 6}</Text>}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {report?.models.length === 0 && (
        <Text ta="center" c="dimmed" my="lg" data-testid="table-empty">
          {t('reports.empty')}
        </Text>
      )}
    </>
  );
}
