import { Badge, Card, Group, NumberInput, Select, SimpleGrid, Text, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AbnormalRecord, AbnormalReport } from '../../../protocol/api/reports.ts';
import { type AbnormalFilter, reportApi } from '../../api/reports.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime, formatPercent } from './format.ts';
import { defaultToolbarValue, ReportToolbar } from './ReportToolbar.tsx';
import { Chart } from './Chart.tsx';

const TYPES = ['cpu_high', 'memory_high', 'crash', 'anr', 'reboot', 'overheat', 'low_storage'] as const;

/** Abnormal statistics (report_abnormal): events per type over time, by type, and the records with CPU and memory. */
export function AbnormalStatisticsPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState(defaultToolbarValue);
  const [type, setType] = useState<string | null>(null);
  const [cpuMin, setCpuMin] = useState<number | string>('');
  const [memoryMin, setMemoryMin] = useState<number | string>('');
  const [applied, setApplied] = useState<{ type?: string; cpuMin?: number; memoryMin?: number }>({});
  const [report, setReport] = useState<AbnormalReport>();
  const query: AbnormalFilter = useMemo(() => ({ ...filter, ...applied }), [filter, applied]);
  // One call answers the charts and a page of the records: the table pages it, the charts take the rest.
  const load = useCallback(
    async (q: ListQuery) => {
      const r = await reportApi.abnormal(query, q.pageNum, q.pageSize);
      setReport(r);
      return { list: r.list, total: r.total };
    },
    [query],
  );
  const typeLabel = (k: string) => t(`reports.abnormal.types.${k}`, { defaultValue: k });
  const labels = useMemo(() => report?.buckets.map((b) => b.key) ?? [], [report]);
  // typeLabel depends only on t.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const series = useMemo(() => report?.series.map((s) => ({ label: typeLabel(s.type), values: s.counts })) ?? [], [report, t]);
   
  const byType = useMemo(() => (report ? [{ label: t('reports.abnormal.byType'), values: report.byType.map((b) => b.count) }] : []), [report, t]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const byTypeLabels = useMemo(() => report?.byType.map((b) => typeLabel(b.type)) ?? [], [report, t]);

  const columns: DataColumn<AbnormalRecord>[] = [
    { key: 'time', title: t('reports.abnormal.time'), fixed: true, style: { whiteSpace: 'nowrap' }, render: (r) => formatDateTime(r.time) },
    { key: 'sn', title: t('reports.abnormal.sn'), render: (r) => r.sn },
    { key: 'model', title: t('reports.abnormal.model'), render: (r) => r.model },
    { key: 'type', title: t('reports.abnormal.type'), render: (r) => typeLabel(r.type) },
    { key: 'cpu', title: t('reports.abnormal.cpu'), render: (r) => formatPercent(r.cpu) },
    { key: 'memory', title: t('reports.abnormal.memory'), render: (r) => formatPercent(r.memory) },
    { key: 'detail', title: t('reports.abnormal.detail'), render: (r) => r.detail },
  ];

  const apply = (next: typeof filter) => {
    setApplied({
      type: type ?? undefined,
      cpuMin: cpuMin === '' ? undefined : Number(cpuMin),
      memoryMin: memoryMin === '' ? undefined : Number(memoryMin),
    });
    setFilter(next);
  };

  return (
    <>
      <Title order={3} mb="md">
        {t('route.abnormalStatistics')}
      </Title>
      <ReportToolbar value={filter} onChange={apply} onExport={(format, lang) => reportApi.export('abnormal', format, query, lang)}>
        <Select
          label={t('reports.abnormal.type')}
          placeholder={t('reports.abnormal.allTypes')}
          data={TYPES.map((k) => ({ value: k, label: typeLabel(k) }))}
          value={type}
          onChange={setType}
          clearable
          w={170}
          data-testid="abnormal-type"
        />
        <NumberInput label={t('reports.abnormal.cpuMin')} min={0} max={100} value={cpuMin} onChange={setCpuMin} w={130} />
        <NumberInput label={t('reports.abnormal.memoryMin')} min={0} max={100} value={memoryMin} onChange={setMemoryMin} w={140} />
      </ReportToolbar>
      {report && (
        <Group mb="sm" gap="md">
          <Badge size="lg" data-testid="abnormal-total">
            {t('reports.abnormal.total', { count: report.total })}
          </Badge>
          <Text size="sm" c="dimmed">
            {t('reports.abnormal.thresholds', report.thresholds)}
          </Text>
        </Group>
      )}
      <SimpleGrid cols={{ base: 1, lg: 2 }} mb="md">
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.abnormal.chart')}
          </Text>
          {report && <Chart testId="chart-abnormal" labels={labels} series={series} kind="bars" integers skipLabels />}
        </Card>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.abnormal.byType')}
          </Text>
          {report && <Chart testId="chart-abnormal-types" labels={byTypeLabels} series={byType} kind="bars" integers />}
        </Card>
      </SimpleGrid>
      <DataTable id="report-abnormal" testId="report-table" columns={columns} rowKey={(r) => r.id} load={load} filterKey={JSON.stringify(query)} emptyText={t('reports.empty')} rowProps={(r) => ({ 'data-sn': r.sn })} />
    </>
  );
}
