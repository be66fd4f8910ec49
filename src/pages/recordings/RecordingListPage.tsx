import { Anchor, Badge, Button, Group, Paper, SegmentedControl, Select, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link, useSearch } from 'wouter';
import type { RecordingPolicyView } from '../../../protocol/api/timeline.ts';
import { saveBytes } from '../../api/device-ops.ts';
import { TOAST_MS } from '../../api/request.ts';
import { type RecordingView, recordingApi } from '../../api/timeline.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../format/date.ts';
import { notifications } from '../../layout/toast.ts';
import { session } from '../../state/session.ts';

type Kind = 'shell' | 'live';
type Policy = RecordingPolicyView['policy'];

/** `datetime-local` text as epoch ms, or undefined when empty or unreadable. */
function epochOf(local: string): number | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** Bytes as KiB or MiB. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Recorded sessions (issue 22, key recording_list): shell and live-view recordings of the caller's
 * organisations, newest first, filtered by device, kind and period; each downloads (.cast / .mp4) and
 * opens in the replay page. Above, the organisation's recording policy, editable with the organisation key.
 * `?sn=` opens it filtered to one device (the device view links here).
 */
export function RecordingListPage() {
  const { t } = useTranslation();
  const snap = useSnapshot(session);
  const initialSn = new URLSearchParams(useSearch()).get('sn') ?? '';
  const [snInput, setSnInput] = useState(initialSn);
  const [kind, setKind] = useState<Kind | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [filter, setFilter] = useState({ sn: initialSn, kind: null as Kind | null, from: '', to: '' });
  const [policy, setPolicy] = useState<Policy | undefined>();
  const [saving, setSaving] = useState(false);
  const orgId = snap.user?.orgId;
  const mayEdit = snap.permissions.includes('org_list');

  useEffect(() => {
    if (orgId === undefined) return;
    let live = true;
    recordingApi.policyOf(orgId).then((p) => live && setPolicy(p.policy), () => undefined);
    return () => {
      live = false;
    };
  }, [orgId]);

  const changePolicy = async (next: Policy) => {
    if (orgId === undefined) return;
    setSaving(true);
    try {
      await recordingApi.setPolicy({ orgId, policy: next });
      setPolicy(next);
      notifications.show({ color: 'green', message: t('recordings.policy.saved'), autoClose: TOAST_MS });
    } finally {
      setSaving(false);
    }
  };

  const load = useCallback(
    (q: ListQuery) =>
      recordingApi.list({
        ...(filter.sn.trim() ? { sn: filter.sn.trim() } : {}),
        ...(filter.kind ? { kind: filter.kind } : {}),
        ...(epochOf(filter.from) !== undefined ? { from: epochOf(filter.from) } : {}),
        ...(epochOf(filter.to) !== undefined ? { to: epochOf(filter.to) } : {}),
        pageNum: q.pageNum,
        pageSize: q.pageSize,
      }),
    [filter],
  );

  const download = useCallback(async (r: RecordingView) => {
    const blob = await recordingApi.download(r.id, 'download');
    const live = r.kind === 'live';
    saveBytes(`${r.sn}-${r.id}${live ? '.mp4' : '.cast'}`, live ? 'video/mp4' : 'application/x-asciicast', new Uint8Array(await blob.arrayBuffer()));
  }, []);

  const columns = useMemo<DataColumn<RecordingView>[]>(
    () => [
      {
        key: 'sn',
        title: t('recordings.device'),
        fixed: true,
        render: (r) => (
          <Anchor component={Link} href={`/device-view/index?sn=${encodeURIComponent(r.sn)}`}>
            {r.sn}
          </Anchor>
        ),
      },
      { key: 'kind', title: t('recordings.kind'), render: (r) => <Badge variant="light" color={r.kind === 'live' ? 'grape' : 'blue'}>{t(`recordings.kinds.${r.kind === 'live' ? 'live' : 'shell'}`)}</Badge> },
      { key: 'account', title: t('recordings.account'), render: (r) => r.account },
      { key: 'start', title: t('recordings.start'), render: (r) => formatDateTime(r.startedAt) },
      { key: 'end', title: t('recordings.end'), render: (r) => (r.endedAt === null ? <Text size="sm" c="orange">{t('recordings.running')}</Text> : formatDateTime(r.endedAt)) },
      { key: 'size', title: t('recordings.size'), render: (r) => sizeText(r.bytes) },
      {
        key: 'download',
        title: t('recordings.download'),
        render: (r) => (
          <Anchor component="button" size="sm" onClick={() => void download(r)} data-testid="recording-row-download">
            {r.kind === 'live' ? '.mp4' : '.cast'}
          </Anchor>
        ),
      },
      {
        key: 'replay',
        title: t('recordings.replay'),
        render: (r) => (
          <Anchor component={Link} size="sm" href={`/device-view/recording?id=${encodeURIComponent(r.id)}`} data-testid="recording-row-replay">
            {t('recordings.replay')}
          </Anchor>
        ),
      },
    ],
    [t, download],
  );

  return (
    <>
      <Paper withBorder p="sm" mb="md" data-testid="recording-policy">
        <Group justify="space-between" wrap="wrap">
          <div>
            <Title order={5}>{t('recordings.policy.title')}</Title>
            <Text size="sm" c="dimmed">{t('recordings.policy.help')}</Text>
          </div>
          <SegmentedControl
            value={policy ?? 'off'}
            disabled={!mayEdit || saving || policy === undefined}
            onChange={(v) => void changePolicy(v as Policy)}
            data={(['off', 'on', 'required'] as const).map((p) => ({ value: p, label: t(`recordings.policy.${p}`) }))}
            data-testid="recording-policy-control"
          />
        </Group>
      </Paper>
      <Group mb="sm" align="flex-end" wrap="wrap">
        <TextInput label={t('recordings.sn')} value={snInput} onChange={(e) => setSnInput(e.currentTarget.value)} w={200} data-testid="recordings-sn" />
        <Select
          label={t('recordings.kind')}
          value={kind}
          onChange={(v) => setKind(v === 'shell' || v === 'live' ? v : null)}
          data={[
            { value: 'shell', label: t('recordings.kinds.shell') },
            { value: 'live', label: t('recordings.kinds.live') },
          ]}
          placeholder={t('recordings.allKinds')}
          clearable
          w={160}
          data-testid="recordings-kind"
        />
        <TextInput type="datetime-local" label={t('recordings.from')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} data-testid="recordings-from" />
        <TextInput type="datetime-local" label={t('recordings.to')} value={to} onChange={(e) => setTo(e.currentTarget.value)} data-testid="recordings-to" />
        <Button onClick={() => setFilter({ sn: snInput, kind, from, to })} data-testid="recordings-search">
          {t('recordings.search')}
        </Button>
        <Button
          variant="default"
          onClick={() => {
            setSnInput('');
            setKind(null);
            setFrom('');
            setTo('');
            setFilter({ sn: '', kind: null, from: '', to: '' });
          }}
        >
          {t('recordings.reset')}
        </Button>
      </Group>
      <DataTable<RecordingView, string>
        id="recordings"
        testId="recordings-table"
        columns={columns}
        rowKey={(r) => r.id}
        load={load}
        filterKey={`${filter.sn}|${filter.kind ?? ''}|${filter.from}|${filter.to}`}
        emptyText={t('recordings.empty')}
        rowProps={(r) => ({ 'data-kind': r.kind, 'data-sn': r.sn })}
      />
    </>
  );
}
