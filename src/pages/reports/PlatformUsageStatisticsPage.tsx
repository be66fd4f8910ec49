import { Card, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { reportApi } from '../../api/reports.ts';
import { formatDateTime, formatDuration } from './format.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
import { Chart } from './Chart.tsx';

// The chart shows the most active accounts; the table below lists all of them.
const CHART_ACCOUNTS = 20;

/** Platform usage statistics (report_statistics_usetime): sessions and active time per account and organisation. */
export function PlatformUsageStatisticsPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState(defaultToolbarValue);
  const report = useReport(() => reportApi.usage(filter), [filter]);
  const top = useMemo(() => report?.accounts.slice(0, CHART_ACCOUNTS) ?? [], [report]);
  const labels = useMemo(() => top.map((a) => a.account), [top]);
  const series = useMemo(
    () => [
      { label: t('reports.usage.activeTime'), values: top.map((a) => Math.round(a.activeMs / 60_000)) },
      { label: t('reports.usage.sessions'), values: top.map((a) => a.sessions) },
    ],
    [top, t],
  );
  return (
    <>
      <Title order={3} mb="md">
        {t('route.platformUsageStatistics')}
      </Title>
      <ReportToolbar value={filter} onChange={setFilter} withPeriod={false} onExport={(format, lang) => reportApi.export('usage', format, filter, lang)} />
      <Card withBorder mb="md">
        <Text fw={600} mb="xs">
          {t('reports.usage.chart')}
        </Text>
        {report && <Chart testId="chart-usage" labels={labels} series={series} kind="bars" integers />}
      </Card>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <div>
          <Text fw={600} mb="xs">
            {t('reports.usage.accounts')}
          </Text>
          <Table highlightOnHover data-testid="report-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('reports.usage.account')}</Table.Th>
                <Table.Th>{t('reports.usage.organisation')}</Table.Th>
                <Table.Th>{t('reports.usage.sessions')}</Table.Th>
                <Table.Th>{t('reports.usage.activeTime')}</Table.Th>
                <Table.Th>{t('reports.usage.lastActive')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {report?.accounts.map((a) => (
                <Table.Tr key={a.accountId}>
                  <Table.Td>{a.account}</Table.Td>
                  <Table.Td>{a.orgName}</Table.Td>
                  <Table.Td>{a.sessions}</Table.Td>
                  <Table.Td>{formatDuration(a.activeMs)}</Table.Td>
                  <Table.Td>{formatDateTime(a.lastActive)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
        <div>
          <Text fw={600} mb="xs">
            {t('reports.usage.organisations')}
          </Text>
          <Table highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('reports.usage.organisation')}</Table.Th>
                <Table.Th>{t('reports.usage.accountCount')}</Table.Th>
                <Table.Th>{t('reports.usage.sessions')}</Table.Th>
                <Table.Th>{t('reports.usage.activeTime')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {report?.organisations.map((o) => (
                <Table.Tr key={o.orgId}>
                  <Table.Td>{o.orgName}</Table.Td>
                  <Table.Td>{o.accounts}</Table.Td>
                  <Table.Td>{o.sessions}</Table.Td>
                  <Table.Td>{formatDuration(o.activeMs)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      </SimpleGrid>
      {report?.accounts.length === 0 && (
        <Text ta="center" c="dimmed" my="lg" data-testid="table-empty">
          {t('reports.empty')}
        </Text>
      )}
    </>
  );
}
