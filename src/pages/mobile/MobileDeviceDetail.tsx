import { Badge, Button, Card, Group, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { Command, labelOf, OnlineState, onlineStateLabels, systemTypeLabels } from '../../../protocol/index.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { sendCommand } from '../../devices/commands.ts';
import { useCan } from '../../state/permissions.ts';
import { useDeviceRow } from '../device-view/use-device-row.ts';

/** The phone layout's device detail (/device-view/index?sn=): facts, live state, reboot and a text message. */
export function MobileDeviceDetail() {
  const { t } = useTranslation();
  const can = useCan();
  const sn = new URLSearchParams(useSearch()).get('sn') ?? '';
  const { device, online } = useDeviceRow(sn);
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState<'reboot' | 'message'>();
  const [message, setMessage] = useState('');
  const [messageError, setMessageError] = useState<string>();

  if (device === undefined && sn) return null;
  if (!device) {
    return (
      <Stack>
        <Text c="dimmed">{t('mobile.noDevice')}</Text>
        <Button component={Link} href="/device-management/index" variant="light">
          {t('mobile.back')}
        </Button>
      </Stack>
    );
  }

  const label = <V extends string | number>(list: readonly { value: V; zh: string; en: string }[], v: V) => labelOf(list, v)?.[currentLanguage] ?? String(v);
  const reboot = async () => {
    setConfirm(false);
    setBusy('reboot');
    await sendCommand({ sn: device.sn }, Command.Reboot, undefined, { label: t('device.reboot') });
    setBusy(undefined);
  };
  const send = async () => {
    const text = message.trim();
    if (!text) return setMessageError(t('mobile.messageEmpty'));
    setMessageError(undefined);
    setBusy('message');
    const outcome = await sendCommand({ sn: device.sn }, Command.PushText, { text }, { label: t('mobile.message') });
    if (outcome.kind === 'reply' && outcome.ok) setMessage('');
    setBusy(undefined);
  };

  const facts: [string, string][] = [
    [t('device.model'), device.model],
    [t('device.systemType'), label(systemTypeLabels, device.systemType)],
    [t('device.systemVersion'), device.systemVersion],
    [t('device.imageVersion'), device.imageVersion],
    [t('device.latestOnlineTime'), formatDateTime(device.latestOnlineTime)],
    [t('device.offlineTime'), formatDateTime(device.offlineTime)],
  ];
  return (
    <Stack gap="sm" data-testid="mobile-device-detail">
      <Group justify="space-between" wrap="nowrap">
        <Title order={4} style={{ wordBreak: 'break-all' }}>
          {device.sn}
        </Title>
        <Badge color={online ? 'green' : 'gray'} data-testid="online-state">
          {label(onlineStateLabels, online ? OnlineState.Online : OnlineState.Offline)}
        </Badge>
      </Group>
      <Card withBorder padding="xs">
        <Table>
          <Table.Tbody>
            {facts.map(([k, v]) => (
              <Table.Tr key={k}>
                <Table.Td c="dimmed">{k}</Table.Td>
                <Table.Td>{v}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
      {can('device_reboot') && (
        <Button color="orange" onClick={() => setConfirm(true)} loading={busy === 'reboot'} disabled={!online} data-testid="mobile-reboot" fullWidth>
          {t('device.reboot')}
        </Button>
      )}
      {can('device_message') && (
        <Card withBorder padding="sm">
          <Stack gap="xs">
            <Textarea label={t('mobile.message')} placeholder={t('mobile.messageText')} value={message} error={messageError} onChange={(e) => setMessage(e.currentTarget.value)} autosize minRows={2} maxLength={512} />
            <Button onClick={() => void send()} loading={busy === 'message'} disabled={!online} data-testid="mobile-send-message">
              {t('mobile.send')}
            </Button>
          </Stack>
        </Card>
      )}
      <Button component={Link} href="/device-management/index" variant="subtle">
        {t('mobile.back')}
      </Button>
      <ConfirmDialog opened={confirm} title={t('device.reboot')} message={t('device.rebootConfirm', { sn: device.sn })} onConfirm={() => void reboot()} onCancel={() => setConfirm(false)} confirmTestId="confirm-reboot" />
    </Stack>
  );
}
