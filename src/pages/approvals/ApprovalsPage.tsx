import { Badge, Button, Checkbox, Group, Modal, SegmentedControl, Stack, Text, Textarea, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { APPROVAL_STATES, type ApprovalState } from '../../../protocol/api/approvals.ts';
import { Command, Result } from '../../../protocol/index.ts';
import { type ApprovalView, approvalApi } from '../../api/approvals.ts';
import { TOAST_MS } from '../../api/request.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../format/date.ts';
import { notifications } from '../../layout/toast.ts';
import { approvalCount, refreshApprovalCount } from '../../state/approval-count.ts';
import { approvalDecisions } from '../../state/approval-decisions.ts';
import { approvalActionText } from '../../state/approval-text.ts';
import { ApprovalPolicyForm } from './ApprovalPolicyForm.tsx';

const STATE_COLOR: Readonly<Record<ApprovalState, string>> = { pending: 'orange', approved: 'green', rejected: 'red', expired: 'gray' };
type Filter = ApprovalState | 'all';

/**
 * Four-eyes approval (issue 23): requests the user may decide (approve or reject) and its own requests
 * with their state. Approving runs the action as its requester; the server checks every decision.
 */
export function ApprovalsPage() {
  const { t } = useTranslation();
  const { toDecide } = useSnapshot(approvalCount);
  // A decision of the user's own requests heard live lists the page again.
  const { heard } = useSnapshot(approvalDecisions);
  const [state, setState] = useState<Filter>('pending');
  const [mine, setMine] = useState(false);
  const [reload, setReload] = useState(0);
  const [deciding, setDeciding] = useState<{ row: ApprovalView; approve: boolean } | undefined>();
  const [reason, setReason] = useState('');

  const actionText = useCallback((row: ApprovalView) => approvalActionText(t, { kind: row.kind, msgId: row.msgId, contentName: (row.params as { contentName?: unknown } | null)?.contentName }), [t]);

  const outcomeText = useCallback(
    (row: ApprovalView) => {
      const o = row.outcome as { list?: { result: number | null }[]; held?: unknown; campaignId?: number; state?: string } | null;
      if (!o) return '';
      if (o.list) return t('approvals.outcomeCounts', { ok: o.list.filter((r) => r.result === Result.Success).length, total: o.list.length });
      if (o.held) return t('approvals.outcomeHeld');
      if (o.campaignId !== undefined && o.state === 'running') return t('approvals.outcomeCampaign', { id: o.campaignId });
      return '';
    },
    [t],
  );

  const load = useCallback(
    (q: ListQuery) => approvalApi.list({ pageNum: q.pageNum, pageSize: q.pageSize, ...(state === 'all' ? {} : { state }), ...(mine ? { mine: true } : {}) }),
    [state, mine],
  );

  const columns = useMemo<DataColumn<ApprovalView>[]>(
    () => [
      { key: 'created', title: t('approvals.created'), fixed: true, render: (r) => formatDateTime(r.createdAt) },
      { key: 'requester', title: t('approvals.requester'), render: (r) => r.requester },
      { key: 'action', title: t('approvals.action'), render: (r) => <Text size="sm" c={r.msgId === Command.FactoryReset || r.msgId === Command.ClearData ? 'red' : undefined}>{actionText(r)}</Text> },
      {
        key: 'targets',
        title: t('approvals.targets'),
        render: (r) => (r.targetCount > 1 ? t('approvals.targetsMore', { first: r.targets[0] ?? '', more: r.targetCount - 1 }) : (r.targets[0] ?? '')),
      },
      {
        key: 'state',
        title: t('approvals.state'),
        render: (r) => (
          <Badge color={STATE_COLOR[r.state]} variant="light" style={{ textTransform: 'none' }} data-testid="approval-state">
            {t(`approvals.states.${r.state}`)}
          </Badge>
        ),
      },
      { key: 'expires', title: t('approvals.expires'), render: (r) => formatDateTime(r.expiresAt) },
      { key: 'decidedBy', title: t('approvals.decidedBy'), render: (r) => (r.decidedBy === 'platform' ? '' : (r.decidedBy ?? '')) },
      { key: 'outcome', title: t('approvals.outcome'), render: (r) => outcomeText(r) || r.reason },
    ],
    [t, actionText, outcomeText],
  );

  const decide = async () => {
    const d = deciding;
    setDeciding(undefined);
    if (!d) return;
    try {
      if (d.approve) {
        await approvalApi.approve(d.row.id);
        notifications.show({ color: 'green', message: t('approvals.approved', { requester: d.row.requester }), autoClose: TOAST_MS });
      } else {
        await approvalApi.reject(d.row.id, reason.trim());
        notifications.show({ color: 'green', message: t('approvals.rejected'), autoClose: TOAST_MS });
      }
    } catch {
      // request() has shown the server's message.
    }
    setReason('');
    setReload((n) => n + 1);
    refreshApprovalCount();
  };

  return (
    <>
      <Group mb="xs" gap="sm">
        <Title order={3}>{t('approvals.title')}</Title>
        {toDecide > 0 && (
          <Badge color="orange" data-testid="approvals-badge" style={{ textTransform: 'none' }}>
            {t('approvals.badge', { count: toDecide })}
          </Badge>
        )}
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        {t('approvals.intro')}
      </Text>
      <ApprovalPolicyForm />
      <Group mb="sm" align="center">
        <SegmentedControl
          value={state}
          onChange={(v) => setState(v as Filter)}
          data={[...APPROVAL_STATES.map((s) => ({ value: s, label: t(`approvals.states.${s}`) })), { value: 'all', label: t('approvals.all') }]}
          data-testid="approvals-state"
        />
        <Checkbox label={t('approvals.mine')} checked={mine} onChange={(e) => setMine(e.currentTarget.checked)} data-testid="approvals-mine" />
      </Group>
      <DataTable<ApprovalView, number>
        id="approvals"
        testId="approvals-table"
        columns={columns}
        rowKey={(r) => r.id}
        load={load}
        filterKey={`${state}|${mine ? 1 : 0}`}
        reload={reload + heard}
        emptyText={t('approvals.empty')}
        rowProps={(r) => ({ 'data-id': String(r.id), 'data-state': r.state })}
        actions={(r) =>
          r.canDecide ? (
            <Group gap={4} wrap="nowrap">
              <Button size="compact-sm" color="green" onClick={() => setDeciding({ row: r, approve: true })} data-testid="approval-approve">
                {t('approvals.approve')}
              </Button>
              <Button size="compact-sm" color="red" variant="light" onClick={() => setDeciding({ row: r, approve: false })} data-testid="approval-reject">
                {t('approvals.reject')}
              </Button>
            </Group>
          ) : r.state === 'pending' ? (
            <Text size="xs" c="dimmed">
              {t('approvals.waiting')}
            </Text>
          ) : null
        }
      />
      <Modal opened={deciding !== undefined} onClose={() => setDeciding(undefined)} title={deciding?.approve ? t('approvals.approveTitle') : t('approvals.rejectTitle')} centered>
        <Stack gap="sm">
          {deciding && <Text size="sm">{t('approvals.approveMessage', { action: actionText(deciding.row), count: deciding.row.targetCount, requester: deciding.row.requester })}</Text>}
          {deciding && !deciding.approve && <Textarea label={t('approvals.reason')} maxLength={200} value={reason} onChange={(e) => setReason(e.currentTarget.value)} data-testid="approval-reason" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeciding(undefined)}>
              {t('device.cancel')}
            </Button>
            <Button color={deciding?.approve ? 'green' : 'red'} onClick={() => void decide()} data-testid="approval-confirm">
              {deciding?.approve ? t('approvals.approve') : t('approvals.reject')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
