import { Alert, Anchor, Button, Checkbox, Group, Image, Modal, NumberInput, Pagination, Select, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { useLocation } from 'wouter';
import { Command, countryLabels, DEVICE_TEXT_FILTERS, type DeviceTextFilter, deviceStateLabels, networkTypeLabels, OnlineState, onlineStateLabels, systemTypeLabels } from '../../../protocol/index.ts';
import type { DeviceSortField } from '../../api/devices.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type Organization, orgApi } from '../../api/orgs.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { usePresenceEpoch } from '../../devices/hooks.ts';
import { holds } from '../../router/menu.ts';
import { session } from '../../state/session.ts';
import { LiveView } from '../device-view/live/LiveView.tsx';
import { captureScreenshot } from '../device-view/remote/screenshot.ts';
import { SshConfigForm } from '../device-view/remote/SshConfigForm.tsx';
import { deviceViewHref } from '../device-view/tab-access.ts';
import { type EditTarget, DeviceEditDialog, MessageDialog } from './DeviceDialogs.tsx';
import { ACTIONS_WIDTH, cellStyle, CHECK_WIDTH, COLUMNS, type DeviceColumn, DeviceRow, type LiveDevice, ROW_HEIGHT, type RowAction, rowColumns, rowStyle, SN_WIDTH } from './DeviceRow.tsx';
import { SavedViewsBar } from './SavedViewsBar.tsx';
import { type DeviceFieldView, deviceFieldApi } from '../../api/device-fields.ts';
import { FieldFilter, fieldColumns, type FieldCondition } from './field-columns.tsx';
import type { SavedViewState } from '../../api/groups.ts';
import type { DeviceListFilter } from '../../../protocol/api/devices.ts';
import { refusedBeforeSending, sendCommand } from '../../devices/commands.ts';
import { type RowsQuery, useDeviceRows } from './device-rows.ts';
import { DEVICE_PAGE_SIZES, type DevicePageSize, matchingSerials, pageWindow } from './list-paging.ts';
import { MAX_SNS } from '../../../protocol/api/devices.ts';
import { notifications } from '../../layout/toast.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ROW_ACTION_COMMAND, ROW_ACTION_TAB } from './row-actions.ts';

const tableWidth = (columns: readonly DeviceColumn[]) => CHECK_WIDTH + SN_WIDTH + columns.reduce((sum, c) => sum + c.width, 0) + ACTIONS_WIDTH;

/** Rows rendered beyond the visible ones, so a fast scroll rarely shows blank rows. */
const OVERSCAN = 12;

type Destructive = { readonly action: 'reboot' | 'clear' | 'reset'; readonly device: LiveDevice };
const DESTRUCTIVE_COMMAND = { reboot: Command.Reboot, clear: Command.ClearData, reset: Command.FactoryReset } as const;

const NO_TEXT: Readonly<Record<DeviceTextFilter, string>> = Object.fromEntries(DEVICE_TEXT_FILTERS.map((k) => [k, ''])) as Record<DeviceTextFilter, string>;

/** The text filters the user typed, trimmed, without the empty ones. */
function textFilters(text: Readonly<Record<DeviceTextFilter, string>>): Partial<Record<DeviceTextFilter, string>> {
  return Object.fromEntries(DEVICE_TEXT_FILTERS.map((k) => [k, text[k].trim()]).filter(([, v]) => v !== ''));
}

/** The list filter of a custom field condition: none until a value is chosen or typed. */
function fieldFilter(cond: FieldCondition | undefined): Pick<DeviceListFilter, 'fields'> {
  const value = cond?.value.trim() ?? '';
  return cond && value ? { fields: [{ id: cond.id, value }] } : {};
}

/**
 * Device management (/device-management/index): the whole fleet in one virtualised list, filtered and
 * sorted on the server, with online state live from the gateway and the device actions of section 6.
 */
export function DeviceManagementPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  // The console's one permission check (holds: the admin role, or the key), kept stable across renders
  // because every memoised row takes it.
  const { roles, permissions } = useSnapshot(session);
  const can = useCallback((key: string) => holds({ roles, permissions }, key), [roles, permissions]);

  const [text, setText] = useState<Readonly<Record<DeviceTextFilter, string>>>(NO_TEXT);
  const [debounced] = useDebouncedValue(text, 300);
  const [choice, setChoice] = useState<{ orgId?: number; onlineState?: number; deviceState?: number; systemType?: string; country?: string; networkType?: number; batteryMax?: number }>({});
  const [orgs, setOrgs] = useState<readonly Organization[]>([]);
  useEffect(() => {
    orgApi.list(1, 100).then((p) => setOrgs(p.list), () => undefined);
  }, []);
  // The caller's custom fields (issue 23): optional columns after the built-in ones, and one filter.
  const [fields, setFields] = useState<readonly DeviceFieldView[]>([]);
  useEffect(() => {
    deviceFieldApi.list().then(setFields, () => undefined);
  }, []);
  const [fieldCond, setFieldCond] = useState<FieldCondition>();
  const [debouncedCond] = useDebouncedValue(fieldCond, 300);
  const [sort, setSort] = useState<{ field: DeviceSortField; order: 'asc' | 'desc' }>({ field: 'id', order: 'desc' });
  // Columns the user hid (a saved view keeps the visible ones).
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const allColumns = useMemo(() => [...COLUMNS, ...fieldColumns(fields)], [fields]);
  const visible = useMemo(() => allColumns.filter((c) => !hidden.has(c.key)), [allColumns, hidden]);
  const rowCols = useMemo(() => rowColumns(visible), [visible]);
  const TABLE_WIDTH = tableWidth(visible);
  const columnTitle = useCallback((c: DeviceColumn) => c.title ?? t(`fleet.col.${c.key}`), [t]);
  const currentView: SavedViewState = useMemo(
    () => ({ filters: { ...textFilters(text), ...choice, ...fieldFilter(fieldCond) } as DeviceListFilter, columns: visible.map((c) => c.key), sortField: sort.field, sortOrder: sort.order }),
    [text, choice, fieldCond, visible, sort],
  );
  const loadView = useCallback(
    (v: SavedViewState) => {
      const f = v.filters as Record<string, unknown>;
      setText(Object.fromEntries(DEVICE_TEXT_FILTERS.map((k) => [k, typeof f[k] === 'string' ? f[k] : ''])) as Record<DeviceTextFilter, string>);
      const { orgId, onlineState, deviceState, systemType, country, networkType, batteryMax } = v.filters;
      setChoice(Object.fromEntries(Object.entries({ orgId, onlineState, deviceState, systemType, country, networkType, batteryMax }).filter(([, x]) => x !== undefined)));
      const cond = v.filters.fields?.[0];
      setFieldCond(cond ? { id: cond.id, value: cond.value } : undefined);
      setSort({ field: v.sortField ?? 'id', order: v.sortOrder ?? 'desc' });
      const shown = new Set(v.columns);
      setHidden(new Set(allColumns.filter((c) => !shown.has(c.key)).map((c) => c.key)));
    },
    [allColumns],
  );
  const query: RowsQuery = useMemo(
    () => ({
      ...textFilters(debounced),
      ...choice,
      ...fieldFilter(debouncedCond),
      sortField: sort.field,
      sortOrder: sort.order,
    }),
    [debounced, choice, debouncedCond, sort],
  );
  const rows = useDeviceRows(query);
  const total = rows.total ?? 0;

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // Every device matching the filters, across pages (resolved to serials when an action runs).
  const [allMatching, setAllMatching] = useState(false);
  // 'all' keeps the one virtualised scroll (the default, which the live-update bench drives); a number pages it.
  const [pageSize, setPageSize] = useState<DevicePageSize>('all');
  const [pageNum, setPageNum] = useState(1);
  const view = pageWindow(total, pageSize, pageNum);
  const [edit, setEdit] = useState<EditTarget>();
  const [messageTo, setMessageTo] = useState<readonly LiveDevice[]>();
  const [confirm, setConfirm] = useState<Destructive>();
  const [live, setLive] = useState<LiveDevice>();
  const [sshFor, setSshFor] = useState<LiveDevice>();
  const [shot, setShot] = useState<{ readonly sn: string; readonly url: string }>();
  const closeShot = () => {
    if (shot) URL.revokeObjectURL(shot.url);
    setShot(undefined);
  };

  // The gateway sends no snapshot: after the socket (re)opens, the rows and their states load again.
  const epoch = usePresenceEpoch();
  const seenEpoch = useRef(epoch);
  const { reload } = rows;
  useEffect(() => {
    if (epoch === seenEpoch.current) return;
    seenEpoch.current = epoch;
    reload();
  }, [epoch, reload]);
  useEffect(() => {
    setSelected(new Set());
    setAllMatching(false);
    setPageNum(1);
  }, [query]);

  const scrollRef = useRef<HTMLDivElement>(null);
  // A new page starts at its top (in braces: Chromium's scrollTo may return a promise, not a cleanup).
  useEffect(() => {
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
  }, [pageNum, pageSize]);
  const virtualizer = useVirtualizer({ count: view.count, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: OVERSCAN });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  const { ensure } = rows;
  // A page (at most 100 rows) loads whole, so selecting the page selects all of it; the one scroll loads what is in view.
  const paged = pageSize !== 'all';
  useEffect(() => (paged ? ensure(view.offset, view.offset + Math.max(0, view.count - 1)) : ensure(first, last)), [ensure, paged, view.offset, view.count, first, last]);

  const onSelect = useCallback((sn: string, on: boolean) => {
    setAllMatching(false);
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(sn);
      else next.delete(sn);
      return next;
    });
  }, []);

  const onAction = useCallback((action: RowAction, device: LiveDevice) => {
    // Actions that talk to the device keep the list's refusals: offline, and what Linux cannot do.
    const command = ROW_ACTION_COMMAND[action];
    const refused = () => command !== undefined && refusedBeforeSending(device, command);
    const tab = ROW_ACTION_TAB[action];
    if (tab) return refused() ? undefined : navigate(deviceViewHref(device.sn, tab, { control: action === 'liveControl' }));
    switch (action) {
      case 'remark':
        return setEdit({ kind: 'remark', sns: [device.sn], initial: device.remark });
      case 'allocate':
        return setEdit({ kind: 'allocate', sns: [device.sn], initial: String(device.orgId) });
      case 'country':
        return setEdit({ kind: 'country', sns: [device.sn], initial: device.country });
      case 'message':
      case 'liveView': {
        if (refused()) return;
        return action === 'message' ? setMessageTo([device]) : setLive(device);
      }
      // SSH debug and capture act as the device view's remote tab does, through its functions.
      case 'ssh':
      case 'capture':
        if (refused()) return;
        if (action === 'ssh') return setSshFor(device);
        return void captureScreenshot(device.sn, device.onlineState === OnlineState.Online).then((url) => url && setShot({ sn: device.sn, url }));
      case 'reboot':
      case 'clear':
      case 'reset':
        return setConfirm({ action, device });
    }
  }, [navigate]);

  const toggleSort = (field: DeviceSortField) =>
    setSort((s) => (s.field === field ? { field, order: s.order === 'desc' ? 'asc' : 'desc' } : { field, order: 'desc' }));

  const choose = (key: keyof typeof choice, numeric: boolean) => (v: string | null) =>
    setChoice((c) => ({ ...c, [key]: v === null || v === 'all' ? undefined : numeric ? Number(v) : v }));
  const options = <V extends string | number>(list: readonly { value: V; zh: string; en: string }[]) => [
    { value: 'all', label: t('fleet.filter.all') },
    ...list.map((l) => ({ value: String(l.value), label: l[currentLanguage] })),
  ];

  // The rows the header checkbox selects: the page, or in the one scroll the rows on screen.
  const viewSns = (pageSize === 'all' ? items.map((i) => i.index) : Array.from({ length: view.count }, (_, i) => i))
    .map((i) => rows.rowAt(view.offset + i)?.sn)
    .filter((sn): sn is string => sn !== undefined);
  const viewAll = viewSns.length > 0 && viewSns.every((sn) => selected.has(sn));
  const viewSome = viewSns.some((sn) => selected.has(sn));
  const toggleView = (on: boolean) => {
    setAllMatching(false);
    setSelected((prev) => {
      const next = new Set(prev);
      for (const sn of viewSns) {
        if (on) next.add(sn);
        else next.delete(sn);
      }
      return next;
    });
  };
  const selectedCount = allMatching ? total : selected.size;
  /** Opens an edit dialog for the selection, resolving "all matching" to serials first (at most MAX_SNS). */
  const editSelection = async (kind: EditTarget['kind']) => {
    if (!allMatching) return setEdit({ kind, sns: [...selected] });
    const found = await matchingSerials(query, can('remote_list')).catch(() => undefined);
    if (!found || found.sns.length === 0) return;
    if (found.total > found.sns.length) notifications.show({ color: 'yellow', message: t('fleet.page.capped', { max: MAX_SNS, total: found.total }), autoClose: TOAST_MS });
    setEdit({ kind, sns: found.sns });
  };
  const clearSelection = () => {
    setSelected(new Set());
    setAllMatching(false);
  };

  return (
    <>
      <Title order={3} mb="md">
        {t('route.deviceManagement')}
      </Title>
      <SavedViewsBar current={currentView} onLoad={loadView} columns={allColumns} hidden={hidden} onHidden={setHidden} title={columnTitle} />
      <Group mb="sm" gap="xs" align="flex-end">
        {DEVICE_TEXT_FILTERS.map((k) => (
          <TextInput key={k} w={130} label={t(`fleet.filter.${k}`)} value={text[k]} onChange={(e) => setText({ ...text, [k]: e.currentTarget.value })} data-testid={`filter-${k}`} />
        ))}
        <Select
          w={150}
          label={t('fleet.filter.org')}
          searchable
          clearable
          value={choice.orgId === undefined ? null : String(choice.orgId)}
          data={orgs.map((o) => ({ value: String(o.id), label: o.name }))}
          onChange={(v) => setChoice((c) => ({ ...c, orgId: v ? Number(v) : undefined }))}
        />
        <Select w={120} label={t('fleet.col.onlineState')} value={choice.onlineState === undefined ? 'all' : String(choice.onlineState)} data={options(onlineStateLabels)} onChange={choose('onlineState', true)} allowDeselect={false} />
        <Select w={120} label={t('fleet.col.deviceState')} value={choice.deviceState === undefined ? 'all' : String(choice.deviceState)} data={options(deviceStateLabels)} onChange={choose('deviceState', true)} allowDeselect={false} />
        <Select w={120} label={t('fleet.col.systemType')} value={choice.systemType ?? 'all'} data={options(systemTypeLabels)} onChange={choose('systemType', false)} allowDeselect={false} />
        <Select w={120} label={t('fleet.col.country')} value={choice.country ?? 'all'} data={options(countryLabels)} onChange={choose('country', false)} allowDeselect={false} />
        <Select w={120} label={t('fleet.col.networkType')} value={choice.networkType === undefined ? 'all' : String(choice.networkType)} data={options(networkTypeLabels)} onChange={choose('networkType', true)} allowDeselect={false} data-testid="filter-networkType" />
        <NumberInput
          w={120}
          label={t('fleet.filter.batteryMax')}
          min={0}
          max={100}
          suffix="%"
          value={choice.batteryMax ?? ''}
          onChange={(v) => setChoice((c) => ({ ...c, batteryMax: typeof v === 'number' ? Math.max(0, Math.min(100, Math.round(v))) : undefined }))}
        />
        {fields.length > 0 && <FieldFilter fields={fields} value={fieldCond} onChange={setFieldCond} />}
        <Button variant="default" onClick={() => (setText(NO_TEXT), setChoice({}), setFieldCond(undefined))}>
          {t('fleet.filter.reset')}
        </Button>
      </Group>
      <Group mb="sm" gap="xs">
        <Text size="sm" c="dimmed" data-testid="device-total">
          {rows.total === undefined ? t('fleet.msg.loading') : t('fleet.msg.total', { count: total })}
        </Text>
        {selectedCount > 0 && (
          <>
            <Text size="sm" data-testid="device-selected">
              {t('fleet.msg.selected', { count: selectedCount })}
            </Text>
            {can('device_remark') && (
              <Button size="compact-sm" variant="light" onClick={() => void editSelection('remark')} data-testid="bulk-remark">
                {t('fleet.action.remark')}
              </Button>
            )}
            {can('device_allocate') && (
              <Button size="compact-sm" variant="light" onClick={() => void editSelection('allocate')} data-testid="bulk-allocate">
                {t('fleet.action.allocate')}
              </Button>
            )}
            {can('device_country') && (
              <Button size="compact-sm" variant="light" onClick={() => void editSelection('country')} data-testid="bulk-country">
                {t('fleet.action.country')}
              </Button>
            )}
          </>
        )}
        <Group gap="xs" ml="auto">
          <Select
            w={150}
            size="xs"
            aria-label={t('fleet.page.size')}
            data-testid="device-page-size"
            data={[{ value: 'all', label: t('fleet.page.all') }, ...DEVICE_PAGE_SIZES.map((n) => ({ value: String(n), label: t('fleet.page.perPage', { count: n }) }))]}
            value={String(pageSize)}
            onChange={(v) => {
              if (!v) return;
              setPageSize(v === 'all' ? 'all' : (Number(v) as DevicePageSize));
              setPageNum(1);
            }}
            allowDeselect={false}
          />
          {pageSize !== 'all' && <Pagination total={view.pages} value={Math.min(pageNum, view.pages)} onChange={setPageNum} siblings={2} size="sm" data-testid="device-pager" />}
        </Group>
      </Group>
      {viewAll && total > viewSns.length && (
        <Alert variant="light" p={6} mb="xs" data-testid="device-select-banner">
          <Group gap="xs">
            {allMatching ? (
              <>
                <Text size="sm">{t('fleet.page.allMatchingSelected', { count: total })}</Text>
                <Anchor component="button" type="button" size="sm" onClick={clearSelection}>
                  {t('fleet.page.clearSelection')}
                </Anchor>
              </>
            ) : (
              <>
                <Text size="sm">{t(pageSize === 'all' ? 'fleet.page.shownSelected' : 'fleet.page.pageSelected', { count: viewSns.length })}</Text>
                <Anchor component="button" type="button" size="sm" onClick={() => setAllMatching(true)} data-testid="device-select-all-matching">
                  {t('fleet.page.selectAllMatching', { count: total })}
                </Anchor>
              </>
            )}
          </Group>
        </Alert>
      )}
      <div ref={scrollRef} data-testid="device-scroll" style={{ height: 'calc(100vh - 300px)', minHeight: 320, overflow: 'auto', position: 'relative' }}>
        <Table style={{ display: 'block', width: TABLE_WIDTH }}>
          <Table.Thead style={{ display: 'block', position: 'sticky', top: 0, zIndex: 2, background: 'var(--mantine-color-body)' }}>
            <Table.Tr style={{ display: 'flex', width: TABLE_WIDTH, height: ROW_HEIGHT, alignItems: 'center' }}>
              <Table.Th style={cellStyle(CHECK_WIDTH)}>
                <Checkbox
                  aria-label={t(pageSize === 'all' ? 'fleet.page.selectShown' : 'fleet.page.selectPage')}
                  checked={viewAll || (allMatching && total > 0)}
                  indeterminate={!viewAll && !allMatching && viewSome}
                  onChange={(e) => toggleView(e.currentTarget.checked)}
                  data-testid="device-select-view"
                />
              </Table.Th>
              <Table.Th style={cellStyle(SN_WIDTH)}>
                <UnstyledButton onClick={() => toggleSort('sn')} fz="sm" fw={700}>
                  {t('fleet.col.sn')} {sort.field === 'sn' ? (sort.order === 'asc' ? '▲' : '▼') : ''}
                </UnstyledButton>
              </Table.Th>
              <Table.Th style={cellStyle(ACTIONS_WIDTH)}>{t('fleet.col.actions')}</Table.Th>
              {visible.map((c) => (
                <Table.Th key={c.key} style={cellStyle(c.width)} data-column={c.key}>
                  {c.sort ? (
                    <UnstyledButton onClick={() => toggleSort(c.sort as DeviceSortField)} fz="sm" fw={700}>
                      {columnTitle(c)} {sort.field === c.sort ? (sort.order === 'asc' ? '▲' : '▼') : ''}
                    </UnstyledButton>
                  ) : (
                    columnTitle(c)
                  )}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody style={{ display: 'block', position: 'relative', height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const device = rows.rowAt(view.offset + item.index);
              return device ? (
                <DeviceRow key={device.sn} top={item.start} width={TABLE_WIDTH} device={device} columns={rowCols} selected={allMatching || selected.has(device.sn)} onSelect={onSelect} onAction={onAction} can={can} />
              ) : (
                <tr key={`loading-${item.index}`} aria-hidden style={rowStyle(item.start, TABLE_WIDTH)} />
              );
            })}
          </Table.Tbody>
        </Table>
        {rows.total === 0 && (
          <Text ta="center" c="dimmed" my="lg" data-testid="table-empty">
            {t('fleet.msg.empty')}
          </Text>
        )}
      </div>

      <ConfirmDialog
        opened={confirm !== undefined}
        title={confirm ? t(`fleet.action.${confirm.action}`) : ''}
        message={confirm ? t(`fleet.confirm.${confirm.action}`, { sn: confirm.device.sn }) : ''}
        danger={confirm?.action !== 'reboot'}
        onConfirm={() => {
          if (!confirm) return;
          setConfirm(undefined);
          void sendCommand(confirm.device, DESTRUCTIVE_COMMAND[confirm.action], confirm.action === 'reboot' ? undefined : {});
        }}
        onCancel={() => setConfirm(undefined)}
        confirmTestId={`confirm-${confirm?.action ?? 'reboot'}`}
      />
      <DeviceEditDialog target={edit} onClose={() => setEdit(undefined)} onSaved={rows.reload} />
      <MessageDialog
        opened={messageTo !== undefined}
        count={messageTo?.length ?? 0}
        onClose={() => setMessageTo(undefined)}
        onSend={(m) => messageTo?.forEach((d) => void sendCommand(d, Command.PushText, m.title ? m : { text: m.text }))}
      />
      <Modal opened={sshFor !== undefined} onClose={() => setSshFor(undefined)} title={sshFor ? t('fleet.ssh.title', { sn: sshFor.sn }) : ''} centered>
        {sshFor && (
          <SshConfigForm
            sn={sshFor.sn}
            apply={(config) => {
              const device = sshFor;
              setSshFor(undefined);
              void sendCommand(device, Command.ChangeSshConfig, config, { voice: 'view' });
            }}
          />
        )}
      </Modal>
      <Modal opened={shot !== undefined} onClose={closeShot} title={shot ? t('fleet.capture.title', { sn: shot.sn }) : ''} size="auto" centered>
        {shot && <Image src={shot.url} alt={t('fleet.capture.title', { sn: shot.sn })} data-testid="row-screenshot" maw={360} />}
      </Modal>
      <Modal opened={live !== undefined} onClose={() => setLive(undefined)} title={live ? t('fleet.live.title', { sn: live.sn }) : ''} size="auto" centered>
        {live && <LiveView sn={live.sn} />}
      </Modal>
    </>
  );
}
