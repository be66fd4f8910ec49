import { Alert, Group, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../state/permissions.ts';
import { useDeviceQuery } from '../device-view/DeviceViewPage.tsx';
import { ShellTerminal } from '../device-view/shell/ShellTerminal.tsx';

/** Web shell (/device-view/webssh?sn=): one device's shell filling the page, the same session as its shell tab. */
export function DeviceWebsshPage() {
  const { t } = useTranslation();
  const { sn } = useDeviceQuery();
  const can = useCan();
  if (!sn) return <Alert color="orange">{t('deviceView.noSn')}</Alert>;
  // The page is the shell tab on its own: the same key (the server refuses the shell without it anyway).
  if (!can('device_shell')) return <Alert color="orange">{t('deviceView.noTabs')}</Alert>;
  return (
    <>
      <Group mb="sm">
        <Title order={4}>{t('deviceView.title', { sn })}</Title>
      </Group>
      <ShellTerminal sn={sn} height="calc(100vh - 220px)" />
    </>
  );
}
