import { Card, SimpleGrid, Text, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UsageReport } from '../../../protocol/api/reports.ts';
import { reportApi } from '../../api/reports.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { formatDateTime, formatDuration } from './format.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';
import { Chart } from './Chart.tsx';

// The chart shows the most active accounts; the table below lists all of them.
const CHART_ACCOUNTS = 20;

type AccountRow = UsageReport['accounts'][number];
type OrgRow = UsageReport['organisations'][number];
const ACCOUNT_SORT: SortValues<AccountRow> = { account: (a) => a.account, orgName: (a) => a.orgName, sessions: (a) => a.sessions, activeMs: (a) => a.activeMs, lastActive: (a) => a.lastActive };
const ORG_SORT: SortValues<OrgRow> = { orgName: (o) => o.orgName, accounts: (o) => o.accounts, sessions: (o) => o.sessions, activeMs: (o) => o.activeMs };
/** Until the report is read the tables stay in their loading state. */
const pending = new Promise<never>(() => undefined);

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
  // The server answers both lists whole: the tables page and sort them here.
  const loadAccounts = useCallback((q: ListQuery) => (report ? Promise.resolve(localPage(report.accounts, q, ACCOUNT_SORT)) : pending), [report]);
  const loadOrgs = useCallback((q: ListQuery) => (report ? Promise.resolve(localPage(report.organisations, q, ORG_SORT)) : pending), [report]);
  const units = { hoursMinutes: (h: number, m: string) => t('reports.usage.hoursMinutes', { h, m }), minutes: (m: number) => t('reports.usage.minutes', { m }) };
  const accountColumns: DataColumn<AccountRow>[] = [
    { key: 'account', title: t('reports.usage.account'), fixed: true, sortable: true, render: (a) => a.account },
    { key: 'orgName', title: t('reports.usage.organisation'), sortable: true, render: (a) => a.orgName },
    { key: 'sessions', title: t('reports.usage.sessions'), sortable: true, render: (a) => a.sessions },
    { key: 'activeMs', title: t('reports.usage.activeTime'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (a) => formatDuration(a.activeMs, units) },
    { key: 'lastActive', title: t('reports.usage.lastActive'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (a) => formatDateTime(a.lastActive) },
  ];
  const orgColumns: DataColumn<OrgRow>[] = [
    { key: 'orgName', title: t('reports.usage.organisation'), fixed: true, sortable: true, render: (o) => o.orgName },
    { key: 'accounts', title: t('reports.usage.accountCount'), sortable: true, render: (o) => o.accounts },
    { key: 'sessions', title: t('reports.usage.sessions'), sortable: true, render: (o) => o.sessions },
    { key: 'activeMs', title: t('reports.usage.activeTime'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (o) => formatDuration(o.activeMs, units) },
  ];
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
      {/* Side by side only where both tables fit whole (xl); at 1366 px they stack. */}
      <SimpleGrid cols={{ base: 1, xl: 2 }}>
        <div>
          <Text fw={600} mb="xs">
            {t('reports.usage.accounts')}
          </Text>
          <DataTable id="report-usage-accounts" testId="report-table" columns={accountColumns} rowKey={(a) => a.accountId} load={loadAccounts} defaultSort="activeMs" emptyText={t('reports.empty')} rowProps={(a) => ({ 'data-account': a.account })} />
        </div>
        <div>
          <Text fw={600} mb="xs">
            {t('reports.usage.organisations')}
          </Text>
          <DataTable id="report-usage-organisations" testId="report-org-table" columns={orgColumns} rowKey={(o) => o.orgId} load={loadOrgs} defaultSort="activeMs" emptyText={t('reports.empty')} rowProps={(o) => ({ 'data-org': o.orgName })} />
        </div>
      </SimpleGrid>
    </>
  );
}
