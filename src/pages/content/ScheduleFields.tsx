import { Checkbox, Chip, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { CampaignView, PushStartRequest } from '../../../protocol/api/campaigns.ts';
import { formatMessage, type MaintenanceWindow, minutesOf, windowProblem } from '../../../protocol/index.ts';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';

/** What the push dialog holds of a campaign's schedule (issue 23): a start time and an optional window. */
export interface ScheduleValue {
  /** `datetime-local` text in the viewer's zone; '' for now. */
  readonly startAt: string;
  readonly useWindow: boolean;
  readonly window: MaintenanceWindow;
}

const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Short weekday names, Sunday first, in the console's language (2026-11-22 was a Sunday). */
const weekdays: readonly string[] = Array.from({ length: 7 }, (_, d) =>
  new Intl.DateTimeFormat(currentLanguage === 'zh' ? 'zh-CN' : 'en-US', { weekday: 'short', timeZone: 'UTC' }).format(Date.UTC(2026, 10, 22 + d)),
);

export const DEFAULT_SCHEDULE: ScheduleValue = {
  startAt: '',
  useWindow: false,
  window: { days: [1, 2, 3, 4, 5], from: '22:00', to: '06:00', timeZone: viewerZone },
};

/** The fields /push/start takes for a schedule, or a message (in the viewer's language) saying what is wrong. */
export function scheduleRequest(v: ScheduleValue): { ok: true; fields: Pick<PushStartRequest, 'startAt' | 'window'> } | { ok: false; message: string } {
  const problem = v.useWindow ? windowProblem(v.window) : undefined;
  if (problem) return { ok: false, message: formatMessage(currentLanguage, problem) };
  const startAt = v.startAt ? new Date(v.startAt).getTime() : undefined;
  return { ok: true, fields: { ...(startAt !== undefined && Number.isFinite(startAt) ? { startAt } : {}), ...(v.useWindow ? { window: { ...v.window, days: [...v.window.days] } } : {}) } };
}

/** The schedule part of the push dialog: start time, and days and hours in a time zone. */
export function ScheduleFields({ value, onChange, error }: { value: ScheduleValue; onChange: (v: ScheduleValue) => void; error?: string | undefined }) {
  const { t } = useTranslation();
  // Browsers list region zones only; UTC and the viewer's own zone are offered too.
  const zones = useMemo(() => [...new Set(['UTC', viewerZone, ...Intl.supportedValuesOf('timeZone')])], []);
  const w = value.window;
  const setWindow = (patch: Partial<MaintenanceWindow>) => onChange({ ...value, window: { ...w, ...patch } });
  const overnight = (minutesOf(w.to) ?? 0) < (minutesOf(w.from) ?? 0);
  return (
    <Stack gap="xs" data-testid="push-schedule">
      <Text fw={600} size="sm">
        {t('content.schedule.title')}
      </Text>
      <TextInput type="datetime-local" label={t('content.schedule.startAt')} value={value.startAt} onChange={(e) => onChange({ ...value, startAt: e.currentTarget.value })} data-testid="push-start-at" />
      <Checkbox label={t('content.schedule.useWindow')} checked={value.useWindow} onChange={(e) => onChange({ ...value, useWindow: e.currentTarget.checked })} data-testid="push-use-window" />
      {value.useWindow && (
        <>
          <Chip.Group multiple value={w.days.map(String)} onChange={(days) => setWindow({ days: days.map(Number).sort() })}>
            <Group gap={4} data-testid="push-window-days">
              {weekdays.map((label, day) => (
                <Chip key={label} value={String(day)} size="xs">
                  {label}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
          <Group grow>
            <TextInput type="time" label={t('content.schedule.from')} value={w.from} onChange={(e) => setWindow({ from: e.currentTarget.value })} data-testid="push-window-from" />
            <TextInput type="time" label={t('content.schedule.to')} value={w.to} onChange={(e) => setWindow({ to: e.currentTarget.value })} data-testid="push-window-to" />
          </Group>
          <Select label={t('content.schedule.timeZone')} data={zones} value={w.timeZone} onChange={(zone) => zone && setWindow({ timeZone: zone })} searchable data-testid="push-window-zone" />
          {overnight && (
            <Text size="xs" c="dimmed">
              {t('content.schedule.overnight')}
            </Text>
          )}
        </>
      )}
      {error && (
        <Text size="sm" c="red" data-testid="push-schedule-error">
          {error}
        </Text>
      )}
    </Stack>
  );
}

/** What a running campaign waits for, and its window, as one line each (nothing when it just runs). */
export function ScheduleState({ campaign }: { campaign: CampaignView }) {
  const { t } = useTranslation();
  const time = campaign.nextOpen ? formatDateTime(campaign.nextOpen) : '';
  return (
    <>
      {campaign.waiting && (
        <Text size="sm" c="orange" data-testid="campaign-waiting">
          {t(`content.schedule.${campaign.waiting}`, { time })}
        </Text>
      )}
      {campaign.window && (
        <Text size="sm" c="dimmed">
          {t('content.schedule.window', { days: campaign.window.days.map((d) => weekdays[d]).join(' '), from: campaign.window.from, to: campaign.window.to, zone: campaign.window.timeZone })}
        </Text>
      )}
    </>
  );
}
