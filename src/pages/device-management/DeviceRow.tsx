import { ActionIcon, Anchor, Badge, Button, Checkbox, Group, Menu, Table } from '@mantine/core';
import { memo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { countryLabels, deviceStateLabels, type EnumMember, labelOf, networkTypeLabels, OnlineState, onlineStateLabels, systemTypeLabels } from '../../../protocol/index.ts';
import type { Device } from '../../api/devices.ts';
import { formatDateTime } from '../../format/date.ts';
import { deviceViewHref } from '../device-view/tab-access.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { presence } from '../../devices/presence.ts';
import { useOnlineState } from '../../devices/hooks.ts';
import { DANGEROUS_ACTIONS, menuActions, type RowAction } from './row-actions.ts';

export type { RowAction } from './row-actions.ts';

/** Height of one row in pixels: fixed, so the virtualiser never has to measure 10,000 rows. */
export const ROW_HEIGHT = 40;
export const CHECK_WIDTH = 44;
export const SN_WIDTH = 130;
export const ACTIONS_WIDTH = 230;

/**
 * Rows and cells are laid out as fixed-size flex boxes rather than as a table: a table re-lays out all
 * its rows when one cell changes, and under a presence storm that layout was most of the main thread's
 * work. Each row is `contain: strict`, so a live change repaints that row alone.
 */
export const rowStyle = (top: number, width: number): React.CSSProperties => ({
  display: 'flex',
  position: 'absolute',
  left: 0,
  top,
  width,
  height: ROW_HEIGHT,
  contain: 'strict',
  alignItems: 'center',
  borderBottom: '1px solid var(--mantine-color-default-border)',
});
export const cellStyle = (width: number): React.CSSProperties => ({
  display: 'block',
  flex: `0 0 ${width}px`,
  width,
  whiteSpace: 'nowrap',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  borderBottom: 'none',
});
// Actions sit right after the serial rather than in a sticky last column: a sticky cell per row is a
// composited layer per row, and re-layerising them on every live change cost more than the rest.
export const actionsCell: React.CSSProperties = { overflow: 'visible' };

/** A device with its live online state, as actions see it. */
export type LiveDevice = Device & { readonly onlineState: number };

const label = <V extends string | number>(list: readonly EnumMember<V>[], v: V) => labelOf(list, v)?.[currentLanguage] ?? String(v);

const GIB = 1024 ** 3;
/** Bytes in 1024 units (devices-and-commerce section 9). */
function formatBytes(n: number | null): string {
  if (n === null) return '';
  return n >= GIB ? `${(n / GIB).toFixed(1)} GB` : `${(n / 1024 ** 2).toFixed(0)} MB`;
}

function formatUptime(seconds: number | null): string {
  if (seconds === null) return '';
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3_600);
  const m = Math.floor((seconds % 3_600) / 60);
  return d > 0 ? `${d}d ${h}h` : `${h}h ${m}m`;
}

const formatDate = (ms: number | null) => formatDateTime(ms).slice(0, 10);

/** A column of the list after the checkbox, serial and actions. */
export interface DeviceColumn {
  readonly key: string;
  /** The server's sort field, where sortable. */
  readonly sort?: string;
  readonly width: number;
  /** Its header when not `fleet.col.<key>` (a custom field's name). */
  readonly title?: string;
}

/** The visible columns around the live online state, as the row lays them out (stable between renders). */
export interface RowColumns {
  readonly before: readonly DeviceColumn[];
  readonly online: boolean;
  readonly after: readonly DeviceColumn[];
}

interface Props {
  /** Offset of the row in the virtual list, in pixels. */
  readonly top: number;
  /** Width of the whole row (every column). */
  readonly width: number;
  readonly device: Device;
  readonly columns: RowColumns;
  readonly selected: boolean;
  readonly onSelect: (sn: string, selected: boolean) => void;
  readonly onAction: (action: RowAction, device: LiveDevice) => void;
  /** Permission keys the caller holds, to offer only the actions they may take. */
  readonly can: (key: string) => boolean;
}

/** The row's cells before the live state: checkbox, serial, actions. They do not depend on the live state. */
const RowHead = memo(function RowHead({ device, selected, onSelect, onAction, can }: Omit<Props, 'top' | 'width' | 'columns'>) {
  const { t } = useTranslation();
  const [menuOpen, setMenuOpen] = useState(false);
  // Actions read the live state when clicked, so a state change need not re-render these cells.
  const act = (action: RowAction) => () => onAction(action, { ...device, onlineState: presence.get(device.sn) ?? device.onlineState });
  return (
    <>
      <Table.Td style={cellStyle(CHECK_WIDTH)}>
        <Checkbox aria-label={device.sn} checked={selected} onChange={(e) => onSelect(device.sn, e.currentTarget.checked)} />
      </Table.Td>
      <Table.Td style={cellStyle(SN_WIDTH)}>{device.sn}</Table.Td>
      <Table.Td style={{ ...cellStyle(ACTIONS_WIDTH), ...actionsCell }}>
        <Group gap={4} wrap="nowrap">
          <Anchor component={Link} href={deviceViewHref(device.sn)} size="sm">
            {t('fleet.action.view')}
          </Anchor>
          {can('device_reboot') && (
            <Button size="compact-xs" variant="light" onClick={act('reboot')}>
              {t('fleet.action.reboot')}
            </Button>
          )}
          {can('device_live_view') && (
            <Button size="compact-xs" variant="light" onClick={act('liveView')}>
              {t('fleet.action.liveView')}
            </Button>
          )}
          {menuOpen ? (
            <Menu position="bottom-end" withinPortal opened onChange={setMenuOpen}>
              <Menu.Target>
                <ActionIcon variant="subtle" size="sm" aria-label={t('fleet.action.more')}>
                  ⋯
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                {menuActions(can, device.systemType).map((action) => (
                  <Menu.Item key={action} color={DANGEROUS_ACTIONS.has(action) ? 'red' : undefined} onClick={act(action)} data-testid={`row-action-${action}`}>
                    {t(`fleet.action.${action}`)}
                  </Menu.Item>
                ))}
              </Menu.Dropdown>
            </Menu>
          ) : (
            // The menu mounts only when asked for, which keeps each of the visible rows light.
            <ActionIcon variant="subtle" size="sm" aria-label={t('fleet.action.more')} onClick={() => setMenuOpen(true)}>
              ⋯
            </ActionIcon>
          )}
        </Group>
      </Table.Td>
    </>
  );
});

/** What one column shows for a device (every column but the live online state). */
function cellOf(key: string, device: Device, t: (key: string) => string): React.ReactNode {
  switch (key) {
    case 'model':
      return device.model;
    case 'org':
      return device.orgName;
    case 'deviceState':
      return label(deviceStateLabels, device.deviceState as 0 | 1 | 2);
    case 'country':
      return label(countryLabels, device.country as 'domestic' | 'abroad');
    case 'systemType':
      return label(systemTypeLabels, device.systemType);
    case 'installDate':
      return formatDate(device.installDate);
    case 'uptime':
      return formatUptime(device.uptime);
    case 'latestOnlineTime':
      return formatDateTime(device.latestOnlineTime);
    case 'offlineTime':
      return formatDateTime(device.offlineTime);
    case 'networkType':
      return label(networkTypeLabels, device.networkType as 0 | 1 | 2 | 3);
    case 'battery':
      return device.battery === null ? '' : `${device.battery}%`;
    case 'storage':
      return device.storageTotal === null ? '' : `${formatBytes(device.storageFree)} / ${formatBytes(device.storageTotal)}`;
    case 'supportFlags':
      return device.supportFlags.length === 0 ? (
        ''
      ) : (
        <Badge variant="light" title={device.supportFlags.map((f) => t(`deviceView.support.${f}`)).join(', ')}>
          {device.supportFlags.length}
        </Badge>
      );
    default: {
      if (key.startsWith(FIELD_COLUMN)) return device.fields?.[key.slice(FIELD_COLUMN.length)] ?? '';
      const value = (device as unknown as Record<string, unknown>)[key];
      return typeof value === 'string' || typeof value === 'number' ? value : '';
    }
  }
}

/** Key prefix of a custom field's column: `field:<id>`. */
export const FIELD_COLUMN = 'field:';

/** Cells of some columns; they do not depend on the live state. */
const Cells = memo(function Cells({ device, columns }: { device: Device; columns: readonly DeviceColumn[] }) {
  const { t } = useTranslation();
  return (
    <>
      {columns.map((c) => (
        <Table.Td key={c.key} style={cellStyle(c.width)}>
          {cellOf(c.key, device, t)}
        </Table.Td>
      ))}
    </>
  );
});

/**
 * One device row. Only the row and its state badge subscribe to the live online state; the other cells
 * are memoised, so a presence change re-renders one badge rather than forty components.
 */
export const DeviceRow = memo(function DeviceRow({ top, width, device, columns, selected, onSelect, onAction, can }: Props) {
  const onlineState = useOnlineState(device.sn, device.onlineState);
  const online = onlineState === OnlineState.Online;
  return (
    <Table.Tr data-sn={device.sn} data-system={device.systemType} data-online={online ? 'online' : 'offline'} style={rowStyle(top, width)}>
      <RowHead device={device} selected={selected} onSelect={onSelect} onAction={onAction} can={can} />
      <Cells device={device} columns={columns.before} />
      {columns.online && (
        <Table.Td style={cellStyle(ONLINE_WIDTH)}>
          <Badge color={online ? 'green' : 'gray'} data-testid="online-state">
            {label(onlineStateLabels, onlineState as 1 | 2)}
          </Badge>
        </Table.Td>
      )}
      <Cells device={device} columns={columns.after} />
    </Table.Tr>
  );
});

const ONLINE_WIDTH = 110;

/** Splits the visible columns around the live online state. */
export function rowColumns(visible: readonly DeviceColumn[]): RowColumns {
  const at = visible.findIndex((c) => c.key === 'onlineState');
  return at < 0 ? { before: visible, online: false, after: [] } : { before: visible.slice(0, at), online: true, after: visible.slice(at + 1) };
}

/** Column headers after the checkbox and SN, in cell order, with the server sort field where sortable (every plain column: DEVICE_SORT_FIELDS). */
export const COLUMNS: readonly DeviceColumn[] = [
  { key: 'model', sort: 'model', width: 110 },
  { key: 'org', sort: 'orgName', width: 130 },
  { key: 'onlineState', sort: 'onlineState', width: ONLINE_WIDTH },
  { key: 'deviceState', sort: 'deviceState', width: 100 },
  { key: 'country', sort: 'country', width: 100 },
  { key: 'imageVersion', sort: 'imageVersion', width: 120 },
  { key: 'mcuVersion', sort: 'mcuVersion', width: 110 },
  { key: 'systemType', sort: 'systemType', width: 100 },
  { key: 'systemVersion', sort: 'systemVersion', width: 130 },
  { key: 'installDate', sort: 'installDate', width: 110 },
  { key: 'uptime', sort: 'uptime', width: 90 },
  { key: 'latestOnlineTime', sort: 'latestOnlineTime', width: 170 },
  { key: 'offlineTime', sort: 'offlineTime', width: 170 },
  { key: 'location', sort: 'location', width: 140 },
  { key: 'networkType', sort: 'networkType', width: 100 },
  { key: 'imei', sort: 'imei', width: 150 },
  { key: 'basebandVersion', sort: 'basebandVersion', width: 140 },
  { key: 'bluetoothMac', sort: 'bluetoothMac', width: 150 },
  { key: 'wlanMac', sort: 'wlanMac', width: 150 },
  { key: 'battery', sort: 'battery', width: 80 },
  { key: 'manufacturer', sort: 'manufacturer', width: 120 },
  { key: 'gnssModel', sort: 'gnssModel', width: 110 },
  { key: 'lteModel', sort: 'lteModel', width: 110 },
  { key: 'hardwareId', sort: 'hardwareId', width: 130 },
  { key: 'terminalVersion', sort: 'terminalVersion', width: 150 },
  { key: 'storage', width: 150 },
  { key: 'supportFlags', width: 130 },
  { key: 'remark', sort: 'remark', width: 180 },
];
