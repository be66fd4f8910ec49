import { Badge, Button, Group, Select, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Command, labelOf, OnlineState, onlineStateLabels, systemTypeLabels } from '../../../protocol/index.ts';
import { type Device, deviceApi, type Page } from '../../api/devices.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { runDeviceCommand } from '../../realtime/commands.ts';
import { presence } from '../../realtime/realtime.ts';


/** Device management: the fleet with live online state and remote commands. */
export function DeviceManagementPage() {
  const { t } = useTranslation();
  const live = useSnapshot(presence).bySn;
  const [pageNum, setPageNum] = useState(1);
  const [pageSize, setPageSize] = useState(10);
  const [snFilter, setSnFilter] = useState('');
  const [sn] = useDebouncedValue(snFilter.trim(), 300);
  const [onlineState, setOnlineState] = useState<number | undefined>();
  const [page, setPage] = useState<Page<Device>>();
  const [confirm, setConfirm] = useState<Device>();
  const [busy, setBusy] = useState<string>();

  useEffect(() => {
    let cancelled = false;
    deviceApi.list({ pageNum, pageSize, sn: sn || undefined, onlineState }).then(
      (p) => !cancelled && setPage(p),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [pageNum, pageSize, sn, onlineState]);

  const label = <V extends string | number>(list: readonly { value: V; zh: string; en: string }[], v: V) => labelOf(list, v)?.[currentLanguage] ?? String(v);

  const reboot = async (device: Device) => {
    setConfirm(undefined);
    setBusy(device.sn);
    await runDeviceCommand(Command.Reboot, device.sn);
    setBusy(undefined);
  };

  return (
    <>
      <Title order={3} mb="md">
        {t('route.deviceManagement')}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('device.search')} value={snFilter} onChange={(e) => (setSnFilter(e.currentTarget.value), setPageNum(1))} />
        <Select
          w={140}
          value={onlineState === undefined ? 'all' : String(onlineState)}
          data={[{ value: 'all', label: t('device.all') }, ...onlineStateLabels.map((l) => ({ value: String(l.value), label: l[currentLanguage] }))]}
          onChange={(v) => (setOnlineState(v && v !== 'all' ? Number(v) : undefined), setPageNum(1))}
          allowDeselect={false}
          aria-label={t('device.onlineState')}
        />
        <Text size="sm" c="dimmed" data-testid="device-total">
          {page ? t('device.total', { count: page.total }) : ''}
        </Text>
      </Group>
      <Table striped highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('device.sn')}</Table.Th>
            <Table.Th>{t('device.model')}</Table.Th>
            <Table.Th>{t('device.systemType')}</Table.Th>
            <Table.Th>{t('device.systemVersion')}</Table.Th>
            <Table.Th>{t('device.onlineState')}</Table.Th>
            <Table.Th>{t('device.latestOnlineTime')}</Table.Th>
            <Table.Th>{t('device.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((d) => {
            const state = live[d.sn] ?? d.onlineState;
            return (
              <Table.Tr key={d.sn} data-sn={d.sn} data-online={state === OnlineState.Online ? 'online' : 'offline'}>
                <Table.Td>{d.sn}</Table.Td>
                <Table.Td>{d.model}</Table.Td>
                <Table.Td>{label(systemTypeLabels, d.systemType)}</Table.Td>
                <Table.Td>{d.systemVersion}</Table.Td>
                <Table.Td>
                  <Badge color={state === OnlineState.Online ? 'green' : 'gray'} data-testid="online-state">
                    {label(onlineStateLabels, state as 1 | 2)}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatDateTime(d.latestOnlineTime)}</Table.Td>
                <Table.Td>
                  <Button size="compact-xs" variant="light" loading={busy === d.sn} onClick={() => setConfirm(d)}>
                    {t('device.reboot')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
      <ListFooter
        shown={page?.list.length}
        total={page?.total}
        emptyText={t('device.empty')}
        pageNum={pageNum}
        pageSize={pageSize}
        onPage={setPageNum}
        onPageSize={(size) => (setPageSize(size), setPageNum(1))}
      />
      <ConfirmDialog
        opened={confirm !== undefined}
        title={t('device.reboot')}
        message={t('device.rebootConfirm', { sn: confirm?.sn ?? '' })}
        onConfirm={() => confirm && void reboot(confirm)}
        onCancel={() => setConfirm(undefined)}
        confirmTestId="confirm-reboot"
      />
    </>
  );
}
