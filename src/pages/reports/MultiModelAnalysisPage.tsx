import { Badge, Card, Group, SimpleGrid, Text, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ModelRow } from '../../../protocol/api/reports.ts';
import { reportApi } from '../../api/reports.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { formatPercent } from './format.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
import { Chart } from './Chart.tsx';

const MODEL_SORT: SortValues<ModelRow> = {
  model: (m) => m.model,
  total: (m) => m.total,
  online: (m) => m.online,
  onlineRate: (m) => m.onlineRate,
  periodOnlineRate: (m) => m.periodOnlineRate,
  avgCpu: (m) => m.avgCpu,
  avgMemory: (m) => m.avgMemory,
};

/** Multi-model analysis (report_multiModelAnalyse): online rate per model over time, age buckets, table. */
export function MultiModelAnalysisPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState(defaultToolbarValue);
  const report = useReport(() => reportApi.multiModel(filter), [filter]);
  const labels = useMemo(() => report?.buckets.map((b) => b.key) ?? [], [report]);
  const series = useMemo(() => report?.series.map((s) => ({ label: s.model, values: s.onlineRate })) ?? [], [report]);
  const ageLabels = useMemo(() => report?.ages.map((a) => t(`reports.age.${a.bucket}`)) ?? [], [report, t]);
  const ageSeries = useMemo(() => (report ? [{ label: t('reports.multiModel.devices'), values: report.ages.map((a) => a.count) }] : []), [report, t]);

  // The server answers the models whole: the table pages and sorts them here.
  const load = useCallback(async (q: ListQuery) => localPage(report?.models ?? [], q, MODEL_SORT), [report]);
  const columns: DataColumn<ModelRow>[] = [
    { key: 'model', title: t('reports.multiModel.model'), fixed: true, sortable: true, render: (m) => m.model },
    { key: 'total', title: t('reports.multiModel.devices'), sortable: true, render: (m) => m.total },
    { key: 'online', title: t('reports.multiModel.online'), sortable: true, render: (m) => m.online },
    { key: 'onlineRate', title: t('reports.multiModel.onlineRate'), sortable: true, render: (m) => formatPercent(m.onlineRate) },
    { key: 'periodOnlineRate', title: t('reports.multiModel.periodOnlineRate'), sortable: true, render: (m) => formatPercent(m.periodOnlineRate) },
    { key: 'avgCpu', title: t('reports.multiModel.avgCpu'), sortable: true, render: (m) => formatPercent(m.avgCpu) },
    { key: 'avgMemory', title: t('reports.multiModel.avgMemory'), sortable: true, render: (m) => formatPercent(m.avgMemory) },
    {
      key: 'versions',
      title: t('reports.multiModel.versions'),
      render: (m) => (
        <Group gap={4}>
          {m.versions.slice(0, 6).map((v) => (
            <Badge key={v.version} variant="light" size="sm">
              {v.version} × {v.count}
            </Badge>
          ))}
          {m.versions.length > 6 && <Text size="xs">+{m.versions.length - 6}</Text>}
        </Group>
      ),
    },
  ];

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
      <DataTable id="report-multi-model" testId="report-table" columns={columns} rowKey={(m) => m.model} load={load} emptyText={t('reports.empty')} rowProps={(m) => ({ 'data-model': m.model })} />
    </>
  );
}
