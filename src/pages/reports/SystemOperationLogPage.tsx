import { Badge, Select, Table, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type OperationLogFilter, reportApi } from '../../api/reports.ts';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from './format.ts';
import { defaultToolbarValue, ReportToolbar, useReport } from './ReportToolbar.tsx';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** System operation log (report_operation_log): every state-changing call, filtered, paged and exportable. */
export function SystemOperationLogPage() {
  const { t } = useTranslation();
  const [range, setRange] = useState(defaultToolbarValue);
  const [draft, setDraft] = useState({ account: '', path: '', target: '', method: null as string | null });
  const [applied, setApplied] = useState(draft);
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const filter: OperationLogFilter = {
    orgId: range.orgId,
    startTime: range.startTime,
    endTime: range.endTime - 1,
    account: applied.account.trim() || undefined,
    path: applied.path.trim() || undefined,
    target: applied.target.trim() || undefined,
    method: applied.method ?? undefined,
  };
  const page = useReport(() => reportApi.operationLog(filter, pageNum, pageSize), [range, applied, pageNum, pageSize]);
  return (
    <>
      <Title order={3} mb="md">
        {t('route.systemOperationLog')}
      </Title>
      <ReportToolbar
        value={range}
        withPeriod={false}
        onChange={(v) => {
          setRange(v);
          setApplied(draft);
          setPageNum(1);
        }}
        onExport={(format, lang) => reportApi.exportOperationLog(format, filter, lang)}
      >
        <TextInput label={t('reports.operationLog.account')} value={draft.account} onChange={(e) => setDraft({ ...draft, account: e.currentTarget.value })} w={140} data-testid="oplog-account" />
        <TextInput label={t('reports.operationLog.action')} value={draft.path} onChange={(e) => setDraft({ ...draft, path: e.currentTarget.value })} placeholder="/permit/addRole" w={170} />
        <TextInput label={t('reports.operationLog.target')} value={draft.target} onChange={(e) => setDraft({ ...draft, target: e.currentTarget.value })} w={110} />
        <Select label={t('reports.operationLog.method')} placeholder={t('reports.operationLog.anyMethod')} data={METHODS} value={draft.method} onChange={(m) => setDraft({ ...draft, method: m })} clearable w={120} />
      </ReportToolbar>
      <Table highlightOnHover data-testid="report-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('reports.operationLog.time')}</Table.Th>
            <Table.Th>{t('reports.operationLog.account')}</Table.Th>
            <Table.Th>{t('reports.operationLog.method')}</Table.Th>
            <Table.Th>{t('reports.operationLog.action')}</Table.Th>
            <Table.Th>{t('reports.operationLog.target')}</Table.Th>
            <Table.Th>{t('reports.operationLog.code')}</Table.Th>
            <Table.Th>{t('reports.operationLog.ip')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((e) => (
            <Table.Tr key={e.id}>
              <Table.Td>{formatDateTime(e.createTime)}</Table.Td>
              <Table.Td>{e.tokenName ? t('integrations.auditByToken', { account: e.account, token: e.tokenName }) : e.account}</Table.Td>
              <Table.Td>{e.method}</Table.Td>
              <Table.Td>{e.path}</Table.Td>
              <Table.Td>{e.target}</Table.Td>
              <Table.Td>
                <Badge color={e.code === 20000 ? 'green' : 'red'} variant="light">
                  {e.code}
                </Badge>
              </Table.Td>
              <Table.Td>{e.ip}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter
        shown={page?.list.length}
        total={page?.total}
        emptyText={t('reports.operationLog.empty')}
        {...paging.footer}
      />
    </>
  );
}
