import { Button, Group, SegmentedControl, Select, TextInput } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { orgApi } from '../../api/orgs.ts';
import type { ExportFormat, Period } from '../../../protocol/api/reports.ts';
import { session } from '../../state/session.ts';

const DAY_MS = 86_400_000;
const PERIODS: readonly Period[] = ['DATE', 'WEEK', 'MONTH', 'YEAR'];
// Wide enough for the YEAR period to show more than one point, short enough for DATE to stay readable.
const DEFAULT_DAYS = 30;

/** What the toolbar's controls choose; times are epoch ms at the viewer's local midnight. */
export interface ToolbarValue {
  readonly orgId: number | undefined;
  readonly period: Period;
  readonly startTime: number;
  readonly endTime: number;
}

const localDate = (t: number) => {
  const d = new Date(t);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};
const parseLocalDate = (s: string) => {
  const [y, m, d] = s.split('-').map(Number);
  return new Date(y ?? 1970, (m ?? 1) - 1, d ?? 1).getTime();
};

/** The default filter: the last 30 days up to the end of today, by day, over every organisation in scope. */
export function defaultToolbarValue(now = Date.now()): ToolbarValue {
  const endTime = parseLocalDate(localDate(now)) + DAY_MS;
  return { orgId: undefined, period: 'DATE', startTime: endTime - DEFAULT_DAYS * DAY_MS, endTime };
}

interface Props {
  readonly value: ToolbarValue;
  readonly onChange: (v: ToolbarValue) => void;
  readonly withPeriod?: boolean;
  readonly withRange?: boolean;
  /** Offered when the report has a table to export. */
  readonly onExport?: (format: ExportFormat, lang: 1 | 2) => Promise<void>;
  readonly children?: React.ReactNode;
}

/** Organisation, period and date range of a report, and its export buttons. */
export function ReportToolbar({ value, onChange, withPeriod = true, withRange = true, onExport, children }: Props) {
  const { t, i18n } = useTranslation();
  const { permissions } = useSnapshot(session);
  const [orgs, setOrgs] = useState<{ value: string; label: string }[]>([]);
  const [draft, setDraft] = useState(() => ({ from: localDate(value.startTime), to: localDate(value.endTime - DAY_MS) }));
  const [busy, setBusy] = useState<ExportFormat>();
  // The organisation picker needs the organisation list, which is its own permission.
  const canListOrgs = permissions.includes('org_list');

  useEffect(() => {
    if (!canListOrgs) return;
    orgApi.list(1, 100).then(
      (page) => setOrgs(page.list.map((o) => ({ value: String(o.id), label: o.name }))),
      () => undefined,
    );
  }, [canListOrgs]);

  const runExport = (format: ExportFormat) => {
    if (!onExport) return;
    setBusy(format);
    onExport(format, i18n.language.startsWith('zh') ? 1 : 2)
      .catch((err: unknown) => notifications.show({ color: 'red', message: t('reports.export.failed', { message: err instanceof Error ? err.message : String(err) }) }))
      .finally(() => setBusy(undefined));
  };

  return (
    <Group mb="md" align="flex-end" gap="sm" wrap="wrap">
      {canListOrgs && (
        <Select
          label={t('reports.filter.organisation')}
          placeholder={t('reports.filter.allOrganisations')}
          data={orgs}
          clearable
          searchable
          value={value.orgId === undefined ? null : String(value.orgId)}
          onChange={(v) => onChange({ ...value, orgId: v ? Number(v) : undefined })}
          w={220}
          data-testid="report-org"
        />
      )}
      {withPeriod && (
        <SegmentedControl
          data-testid="report-period"
          data={PERIODS.map((p) => ({ value: p, label: t(`reports.period.${p}`) }))}
          value={value.period}
          onChange={(p) => onChange({ ...value, period: p as Period })}
        />
      )}
      {withRange && (
        <>
          <TextInput type="date" label={t('reports.filter.from')} value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.currentTarget.value })} data-testid="report-from" />
          <TextInput type="date" label={t('reports.filter.to')} value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.currentTarget.value })} data-testid="report-to" />
        </>
      )}
      {children}
      <Button
        data-testid="report-query"
        onClick={() => {
          const startTime = draft.from ? parseLocalDate(draft.from) : value.startTime;
          const endTime = draft.to ? parseLocalDate(draft.to) + DAY_MS : value.endTime;
          onChange({ ...value, startTime, endTime: Math.max(endTime, startTime + DAY_MS) });
        }}
      >
        {t('reports.filter.query')}
      </Button>
      {onExport && (
        <>
          <Button variant="default" loading={busy === 'csv'} onClick={() => runExport('csv')} data-testid="export-csv">
            {t('reports.export.csv')}
          </Button>
          <Button variant="default" loading={busy === 'xlsx'} onClick={() => runExport('xlsx')} data-testid="export-xlsx">
            {t('reports.export.xlsx')}
          </Button>
        </>
      )}
    </Group>
  );
}

/** Runs `load` whenever `deps` change, keeping the last result; errors are toasted by the REST client. */
export function useReport<T>(load: () => Promise<T>, deps: readonly unknown[]): T | undefined {
  const [data, setData] = useState<T>();
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && setData(d),
      () => undefined,
    );
    return () => {
      live = false;
    };
    // The caller lists what the load depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return data;
}
