import { Anchor, Badge, Button, Group, Text, TextInput } from '@mantine/core';
import { Link } from 'wouter';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TIMELINE_SOURCES, type TimelineEntry } from '../../../../protocol/api/timeline.ts';
import { Command, Result } from '../../../../protocol/index.ts';
import { saveBytes } from '../../../api/device-ops.ts';
import { timelineApi } from '../../../api/timeline.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../../components/DataTable.tsx';
import { resultText } from '../../../devices/commands.ts';
import { formatDateTime } from '../../../format/date.ts';
import { useCan } from '../../../state/permissions.ts';
import { toCsv } from './timeline-csv.ts';

/** Most entries one export gathers (100 pages of 100). */
const EXPORT_PAGES = 100;
const commandNames = new Map<number, string>(Object.entries(Command).map(([name, id]) => [id, name]));

/** `datetime-local` text as epoch ms, or undefined when empty or unreadable. */
function epochOf(local: string): number | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The device's action timeline (issue 22): every command that reached it, by whom and by which route,
 * newest first, within a chosen period; exportable as CSV. Read with POST /device/timeline.
 */
export function TimelineTab({ sn }: { readonly sn: string }) {
  const { t } = useTranslation();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [exporting, setExporting] = useState(false);
  const mayReplay = useCan()('recording_list');
  const range = useMemo(() => ({ from: epochOf(from), to: epochOf(to) }), [from, to]);

  const commandText = useCallback(
    (msgId: number) => {
      const name = commandNames.get(msgId) ?? String(msgId);
      return t(`deviceView.activity.command.${name}`, { defaultValue: name });
    },
    [t],
  );
  const sourceText = useCallback((s: string) => ((TIMELINE_SOURCES as readonly string[]).includes(s) ? t(`timeline.sources.${s}`) : s), [t]);
  const accountText = useCallback((a: string) => (a === 'platform' ? t('timeline.platform') : a), [t]);
  const outcomeText = useCallback((e: TimelineEntry) => resultText(e.result, e.message ? { message: e.message } : undefined), []);

  const load = useCallback((q: ListQuery) => timelineApi.list({ sn, ...range, pageNum: q.pageNum, pageSize: q.pageSize }), [sn, range]);

  const columns = useMemo<DataColumn<TimelineEntry>[]>(
    () => [
      { key: 'time', title: t('timeline.time'), fixed: true, render: (e) => formatDateTime(e.time) },
      { key: 'account', title: t('timeline.account'), render: (e) => accountText(e.account) },
      { key: 'source', title: t('timeline.source'), render: (e) => <Badge variant="light" style={{ textTransform: 'none' }}>{sourceText(e.source)}</Badge> },
      { key: 'command', title: t('timeline.command'), render: (e) => commandText(e.msgId) },
      { key: 'params', title: t('timeline.params'), render: (e) => <Text size="xs" ff="monospace">{e.params}</Text> },
      {
        key: 'result',
        title: t('timeline.result'),
        render: (e) => (
          <Badge color={e.result === Result.Success ? 'green' : e.result === Result.AwaitingApproval ? 'orange' : 'red'} variant="light" style={{ textTransform: 'none' }}>
            {outcomeText(e)}
          </Badge>
        ),
      },
      { key: 'duration', title: t('timeline.duration'), render: (e) => t('timeline.durationMs', { ms: e.durationMs }) },
      {
        key: 'recording',
        title: t('timeline.recording'),
        render: (e) =>
          e.recordingId ? (
            <Anchor component={Link} href={`/device-view/recording?id=${encodeURIComponent(e.recordingId)}`} data-testid="timeline-replay">
              {t('timeline.recording')}
            </Anchor>
          ) : null,
      },
    ],
    [t, accountText, sourceText, commandText, outcomeText],
  );

  const exportCsv = async () => {
    setExporting(true);
    try {
      const rows: TimelineEntry[] = [];
      for (let pageNum = 1; pageNum <= EXPORT_PAGES; pageNum++) {
        const page = await timelineApi.list({ sn, ...range, pageNum, pageSize: 100 });
        rows.push(...page.list);
        if (rows.length >= page.total || page.list.length === 0) break;
      }
      const header = [t('timeline.time'), t('timeline.account'), t('timeline.source'), t('timeline.command'), t('timeline.params'), t('timeline.result'), t('timeline.duration')];
      const csv = toCsv(header, rows.map((e) => [formatDateTime(e.time), accountText(e.account), sourceText(e.source), commandText(e.msgId), e.params, outcomeText(e), e.durationMs]));
      saveBytes(`timeline-${sn}.csv`, 'text/csv;charset=utf-8', new TextEncoder().encode(csv));
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <Group mb="sm" align="flex-end">
        <TextInput type="datetime-local" label={t('timeline.from')} value={from} onChange={(e) => setFrom(e.currentTarget.value)} data-testid="timeline-from" />
        <TextInput type="datetime-local" label={t('timeline.to')} value={to} onChange={(e) => setTo(e.currentTarget.value)} data-testid="timeline-to" />
        <Button variant="default" disabled={!from && !to} onClick={() => { setFrom(''); setTo(''); }}>
          {t('timeline.clear')}
        </Button>
        <Button variant="light" loading={exporting} onClick={() => void exportCsv()} data-testid="timeline-export">
          {exporting ? t('timeline.exporting') : t('timeline.exportCsv')}
        </Button>
        {mayReplay && (
          <Button component={Link} href={`/recording-management/index?sn=${encodeURIComponent(sn)}`} variant="subtle" data-testid="timeline-recordings">
            {t('recordings.openRecordings')}
          </Button>
        )}
      </Group>
      <DataTable<TimelineEntry, number>
        id="device-timeline"
        testId="timeline-table"
        columns={columns}
        rowKey={(e) => e.id}
        load={load}
        filterKey={`${sn}|${range.from ?? ''}|${range.to ?? ''}`}
        emptyText={t('timeline.empty')}
        rowProps={(e) => ({ 'data-source': e.source, 'data-account': e.account })}
      />
    </>
  );
}
