import { Badge, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OperationLogEntry } from '../../../protocol/api/reports.ts';
import { AUDIT_ACTION_KEYS, auditActionName } from '../../../protocol/index.ts';
import { type OperationLogFilter, reportApi } from '../../api/reports.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime } from './format.ts';
import { defaultToolbarValue, ReportToolbar } from './ReportToolbar.tsx';

const SUCCESS = 20000;

/** System operation log (report_operation_log): every state-changing call by its name and target's name, filtered, paged and exportable. */
export function SystemOperationLogPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'zh' ? 'zh' : 'en';
  const [range, setRange] = useState(defaultToolbarValue);
  const [draft, setDraft] = useState({ account: '', action: null as string | null, target: '' });
  const [applied, setApplied] = useState(draft);
  const filter = useMemo((): OperationLogFilter => {
    const [method, path] = applied.action ? applied.action.split(' ') : [undefined, undefined];
    return {
      orgId: range.orgId,
      startTime: range.startTime,
      endTime: range.endTime - 1,
      account: applied.account.trim() || undefined,
      path,
      method,
      target: applied.target.trim() || undefined,
    };
  }, [range, applied]);
  const load = useCallback((q: ListQuery) => reportApi.operationLog(filter, q.pageNum, q.pageSize), [filter]);
  const actionName = useCallback((e: { method: string; path: string }) => auditActionName(e.method, e.path, lang), [lang]);
  const actions = useMemo(
    () =>
      AUDIT_ACTION_KEYS.map((key) => {
        const [method = '', path = ''] = key.split(' ');
        return { value: key, label: auditActionName(method, path, lang) };
      }).sort((a, b) => a.label.localeCompare(b.label, lang)),
    [lang],
  );

  const columns = useMemo<DataColumn<OperationLogEntry>[]>(
    () => [
      { key: 'time', title: t('reports.operationLog.time'), fixed: true, render: (e) => formatDateTime(e.createTime), style: { whiteSpace: 'nowrap' } },
      {
        key: 'account',
        title: t('reports.operationLog.account'),
        render: (e) => (e.tokenName ? t('integrations.auditByToken', { account: e.account, token: e.tokenName }) : e.account),
      },
      { key: 'action', title: t('reports.operationLog.action'), fixed: true, render: (e) => <Text size="sm" data-testid="oplog-action">{actionName(e)}</Text> },
      {
        key: 'target',
        title: t('reports.operationLog.target'),
        render: (e) => (
          <Stack gap={0} data-testid="oplog-target">
            {e.targetName && <Text size="sm">{e.targetName}</Text>}
            {e.target && (
              <Text size="xs" c="dimmed">
                {t('audit.targetId', { id: e.target })}
              </Text>
            )}
          </Stack>
        ),
      },
      {
        key: 'result',
        title: t('audit.result'),
        render: (e) => (
          <Badge color={e.code === SUCCESS ? 'green' : 'red'} variant="light" style={{ textTransform: 'none' }}>
            {e.code === SUCCESS ? t('audit.ok') : t('audit.refused', { code: e.code })}
          </Badge>
        ),
      },
      { key: 'ip', title: t('reports.operationLog.ip'), render: (e) => e.ip },
      { key: 'route', title: t('audit.route'), hiddenByDefault: true, render: (e) => <Text size="xs" ff="monospace">{`${e.method} ${e.path}`}</Text> },
    ],
    [t, actionName],
  );

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
        }}
        onExport={(format, l) => reportApi.exportOperationLog(format, filter, l)}
      >
        <TextInput label={t('reports.operationLog.account')} value={draft.account} onChange={(e) => setDraft({ ...draft, account: e.currentTarget.value })} w={140} maxLength={128} data-testid="oplog-account" />
        <Select
          label={t('reports.operationLog.action')}
          placeholder={t('audit.anyAction')}
          data={actions}
          value={draft.action}
          onChange={(a) => setDraft({ ...draft, action: a })}
          searchable
          clearable
          w={200}
          data-testid="oplog-action-filter"
          comboboxProps={{ withinPortal: true }}
        />
        <TextInput label={t('reports.operationLog.target')} placeholder="ID" value={draft.target} onChange={(e) => setDraft({ ...draft, target: e.currentTarget.value })} w={100} maxLength={128} />
      </ReportToolbar>
      <DataTable<OperationLogEntry, number>
        id="operation-log"
        testId="report-table"
        columns={columns}
        rowKey={(e) => e.id}
        load={load}
        filterKey={JSON.stringify(filter)}
        emptyText={t('reports.operationLog.empty')}
        rowProps={(e) => ({ 'data-path': e.path })}
      />
    </>
  );
}
