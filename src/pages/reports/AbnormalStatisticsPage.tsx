import { Badge, Card, Group, NumberInput, Select, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type AbnormalFilter, reportApi } from '../../api/reports.ts';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime, formatPercent } from './format.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
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
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const query: AbnormalFilter = { ...filter, ...applied };
  const report = useReport(() => reportApi.abnormal(query, pageNum, pageSize), [filter, applied, pageNum, pageSize]);
  const typeLabel = (k: string) => t(`reports.abnormal.types.${k}`, { defaultValue: k });
  const labels = useMemo(() => report?.buckets.map((b) => b.key) ?? [], [report]);
  // typeLabel depends only on t.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const series = useMemo(() => report?.series.map((s) => ({ label: typeLabel(s.type), values: s.counts })) ?? [], [report, t]);
   
  const byType = useMemo(() => (report ? [{ label: t('reports.abnormal.byType'), values: report.byType.map((b) => b.count) }] : []), [report, t]);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const byTypeLabels = useMemo(() => report?.byType.map((b) => typeLabel(b.type)) ?? [], [report, t]);

  const apply = (next: typeof filter) => {
    setPageNum(1);
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
      <Table highlightOnHover data-testid="report-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('reports.abnormal.time')}</Table.Th>
            <Table.Th>{t('reports.abnormal.sn')}</Table.Th>
            <Table.Th>{t('reports.abnormal.model')}</Table.Th>
            <Table.Th>{t('reports.abnormal.type')}</Table.Th>
            <Table.Th>{t('reports.abnormal.cpu')}</Table.Th>
            <Table.Th>{t('reports.abnormal.memory')}</Table.Th>
            <Table.Th>{t('reports.abnormal.detail')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {report?.list.map((r) => (
            <Table.Tr key={r.id} data-sn={r.sn}>
              <Table.Td>{formatDateTime(r.time)}</Table.Td>
              <Table.Td>{r.sn}</Table.Td>
              <Table.Td>{r.model}</Table.Td>
              <Table.Td>{typeLabel(r.type)}</Table.Td>
              <Table.Td>{formatPercent(r.cpu)}</Table.Td>
              <Table.Td>{formatPercent(r.memory)}</Table.Td>
              <Table.Td>{r.detail}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter
        shown={report?.list.length}
        total={report?.total}
        emptyText={t('reports.empty')}
        {...paging.footer}
      />
    </>
  );
}
