import { Badge, Button, Group, Modal, Radio, Select, Stack, Table, Text, Textarea, TextInput } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PushSkipReport } from '../../../protocol/api/campaigns.ts';
import type { DeviceListFilter } from '../../../protocol/api/devices.ts';
import { systemTypeLabels, labelOf } from '../../../protocol/index.ts';
import { cleanFilter, type Device, deviceApi } from '../../api/devices.ts';
import { groupApi, type GroupView, type SavedView, viewApi } from '../../api/groups.ts';
import { type DataColumn, DataTable, type Selection } from '../../components/DataTable.tsx';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { holds } from '../../router/menu.ts';
import { session } from '../../state/session.ts';
import { MAX_GROUP_NAME } from '../../../protocol/api/groups.ts';
import { type PushQuery, PushQueryFields } from './PushQueryFields.tsx';
import { FormActions } from '../../components/FormActions.tsx';

/** Where a push goes, as the picker holds it. */
export type TargetMode = 'pick' | 'sns' | 'query' | 'group';
export interface PushTargetState {
  readonly mode: TargetMode;
  /** Filters of the picker's table and of "all matching a query". */
  readonly query: PushQuery;
  /** Devices ticked in the picker's table (across pages), or every device matching its filters. */
  readonly selection: Selection<string>;
  /** Typed serials. */
  readonly sns: string;
  readonly groupId: number | undefined;
}

export const EMPTY_SELECTION: Selection<string> = { ids: [], allMatching: false, count: 0 };

/** The /push/start target fields of a picker state, or undefined when nothing is chosen. */
export function targetRequest(s: PushTargetState): { sns: string[] } | { query: DeviceListFilter; byQuery: true } | { deviceGroupId: number } | undefined {
  switch (s.mode) {
    case 'pick':
      if (s.selection.allMatching) return { byQuery: true, query: cleanFilter({ ...s.query }) };
      return s.selection.ids.length > 0 ? { sns: [...s.selection.ids] } : undefined;
    case 'sns': {
      const list = s.sns.split(/[\s,，]+/).map((x) => x.trim()).filter(Boolean);
      return list.length > 0 ? { sns: list } : undefined;
    }
    case 'query':
      return { byQuery: true, query: cleanFilter({ ...s.query }) };
    case 'group':
      return s.groupId === undefined ? undefined : { deviceGroupId: s.groupId };
  }
}

/** Reports the table's selection to the picker (the table hands it to its toolbar only). */
function SelectionSink({ selection, onChange }: { selection: Selection<string>; onChange: (s: Selection<string>) => void }) {
  const key = `${selection.allMatching}:${selection.count}:${selection.ids.join(',')}`;
  useEffect(() => onChange(selection), [key]); // eslint-disable-line react-hooks/exhaustive-deps -- by content
  return null;
}

/**
 * The push target picker (issue 20): devices picked from the device list's filters with selection across
 * pages (or every device matching them), typed serials, every device matching a query (a saved view's
 * filters can be loaded into it, and it can be saved as a dynamic group), or a dynamic group.
 */
export function PushTargetPicker({ value, onChange }: { value: PushTargetState; onChange: (s: PushTargetState) => void }) {
  const { t } = useTranslation();
  const [groups, setGroups] = useState<readonly GroupView[]>([]);
  const [views, setViews] = useState<readonly SavedView[]>([]);
  const [naming, setNaming] = useState(false);
  const mayGroup = holds(session, 'device_group');
  const loadGroups = () => groupApi.list().then((p) => setGroups(p.list), () => setGroups([]));
  useEffect(() => {
    void loadGroups();
    viewApi.list().then(setViews, () => setViews([]));
  }, []);
  const set = (patch: Partial<PushTargetState>) => onChange({ ...value, ...patch });
  const filterKey = JSON.stringify(cleanFilter({ ...value.query }));
  const columns: readonly DataColumn<Device>[] = useMemo(
    () => [
      { key: 'sn', title: t('fleet.col.sn'), render: (d) => d.sn, sortable: true, fixed: true },
      { key: 'model', title: t('fleet.col.model'), render: (d) => d.model, sortable: true },
      { key: 'systemType', title: t('fleet.col.systemType'), render: (d) => labelOf(systemTypeLabels, d.systemType)?.[currentLanguage] ?? d.systemType, sortable: true },
      { key: 'orgName', title: t('fleet.col.org'), render: (d) => d.orgName, sortable: true },
      { key: 'imageVersion', title: t('fleet.col.imageVersion'), render: (d) => d.imageVersion },
    ],
    [t],
  );
  const form = useConsoleForm<{ name: string }>({ initialValues: { name: '' }, rules: { name: [rules.required(), rules.maxLength(MAX_GROUP_NAME), rules.noEmoji()] }, serverKeys: { 'group.nameTaken': 'name' } });
  const saveGroup = async (v: { name: string }) => {
    const group = await groupApi.create({ name: v.name.trim(), query: cleanFilter({ ...value.query }) });
    setNaming(false);
    await loadGroups();
    onChange({ ...value, mode: 'group', groupId: group.id });
  };
  const group = groups.find((g) => g.id === value.groupId);

  return (
    <Stack gap="xs" data-testid="push-target-picker">
      <Radio.Group label={t('groups.picker.target')} value={value.mode} onChange={(m) => set({ mode: m as TargetMode })}>
        <Group gap="md" mt={4}>
          <Radio value="pick" label={t('groups.picker.pick')} data-testid="push-mode-pick" />
          <Radio value="sns" label={t('groups.picker.sns')} data-testid="push-mode-sns" />
          <Radio value="query" label={t('content.byQuery')} data-testid="push-mode-query" />
          <Radio value="group" label={t('groups.picker.group')} data-testid="push-mode-group" />
        </Group>
      </Radio.Group>
      {(value.mode === 'pick' || value.mode === 'query') && (
        <Group gap="xs" align="flex-end">
          <Select
            w={260}
            label={t('groups.picker.savedQuery')}
            placeholder={views.length === 0 ? t('groups.view.none') : t('groups.view.placeholder')}
            data={views.map((v) => ({ value: String(v.id), label: v.name }))}
            value={null}
            onChange={(id) => {
              const v = views.find((x) => String(x.id) === id);
              if (v) set({ query: { model: v.state.filters.model, systemType: v.state.filters.systemType, onlineState: v.state.filters.onlineState, imageVersion: v.state.filters.imageVersion } });
            }}
            data-testid="push-saved-query"
          />
          {value.mode === 'query' && mayGroup && (
            <Button variant="light" onClick={() => (form.form.setValues({ name: '' }), setNaming(true))} data-testid="push-save-group">
              {t('groups.picker.saveGroup')}
            </Button>
          )}
        </Group>
      )}
      {(value.mode === 'pick' || value.mode === 'query') && <PushQueryFields value={value.query} onChange={(q) => set({ query: q })} />}
      {value.mode === 'pick' && (
        <DataTable<Device, string>
          id="push-target-picker"
          testId="push-picker-table"
          columns={columns}
          rowKey={(d) => d.sn}
          filterKey={filterKey}
          defaultSort="sn"
          load={(q) => deviceApi.list({ ...cleanFilter({ ...value.query }), pageNum: q.pageNum, pageSize: q.pageSize, ...(q.sort ? { sortField: q.sort.key as 'sn', sortOrder: q.sort.order } : {}) })}
          rowProps={(d) => ({ 'data-sn': d.sn })}
          rowLabel={(d) => d.sn}
          emptyText={t('fleet.msg.empty')}
          toolbar={(selection) => (
            <>
              <SelectionSink selection={selection} onChange={(s) => set({ selection: s })} />
              <Text size="sm" data-testid="push-picked-count">
                {t('groups.picker.picked', { count: selection.count })}
              </Text>
            </>
          )}
        />
      )}
      {value.mode === 'sns' && <Textarea label={t('content.devices')} autosize minRows={3} value={value.sns} onChange={(e) => set({ sns: e.currentTarget.value })} data-testid="push-sns" />}
      {value.mode === 'group' && (
        <Group gap="xs" align="flex-end">
          <Select
            w={320}
            label={t('groups.picker.group')}
            placeholder={groups.length === 0 ? t('groups.picker.noGroups') : t('groups.picker.chooseGroup')}
            data={groups.map((g) => ({ value: String(g.id), label: g.name }))}
            value={value.groupId === undefined ? null : String(value.groupId)}
            onChange={(id) => set({ groupId: id ? Number(id) : undefined })}
            data-testid="push-group"
          />
          {group && (
            <Text size="sm" c="dimmed" data-testid="push-group-members">
              {t('groups.picker.members', { count: group.members })}
            </Text>
          )}
        </Group>
      )}
      {value.mode === 'group' && (
        <Text size="xs" c="dimmed">
          {t('groups.picker.follows')}
        </Text>
      )}
      <Modal opened={naming} onClose={() => setNaming(false)} title={t('groups.picker.saveGroup')} centered>
        <form onSubmit={form.onSubmit(saveGroup)}>
          <Stack>
            <TextInput label={t('groups.picker.groupName')} withAsterisk {...form.field('name')} data-testid="push-group-name" />
            <FormActions submitting={form.submitting} onCancel={() => setNaming(false)} submitTestId="push-group-submit" />
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}

/** The skipped-devices report: which devices the content cannot go to and why, then push to the rest. */
export function SkipReportDialog({ report, onConfirm, onCancel }: { report: PushSkipReport | undefined; onConfirm: () => void; onCancel: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal opened={report !== undefined} onClose={onCancel} title={t('groups.skip.title')} size="lg" centered>
      {report && (
        <Stack data-testid="push-skip-report">
          <Text size="sm">{t('groups.skip.summary', { skipped: report.skippedCount, pushable: report.pushable })}</Text>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('fleet.col.sn')}</Table.Th>
                <Table.Th>{t('fleet.col.model')}</Table.Th>
                <Table.Th>{t('fleet.col.systemType')}</Table.Th>
                <Table.Th>{t('groups.skip.reason')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {report.skipped.map((d) => (
                <Table.Tr key={d.sn} data-skipped-sn={d.sn}>
                  <Table.Td>{d.sn}</Table.Td>
                  <Table.Td>{d.model}</Table.Td>
                  <Table.Td>{labelOf(systemTypeLabels, d.systemType as 'android')?.[currentLanguage] ?? d.systemType}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color="orange">
                      {t(`groups.skip.reasons.${d.reason}`)}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {report.skippedCount > report.skipped.length && <Text size="xs">{t('groups.skip.more', { count: report.skippedCount - report.skipped.length })}</Text>}
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel}>
              {t('device.cancel')}
            </Button>
            <Button onClick={onConfirm} disabled={report.pushable === 0} data-testid="push-skip-confirm">
              {t('groups.skip.confirm', { count: report.pushable })}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
