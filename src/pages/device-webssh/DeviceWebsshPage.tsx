import { Alert, Group, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useDeviceQuery } from '../device-view/DeviceViewPage.tsx';
import { ShellTerminal } from '../device-view/shell/ShellTerminal.tsx';

/** Web shell (/device-view/webssh?sn=): one device's shell filling the page. */
export function DeviceWebsshPage() {
  const { t } = useTranslation();
  const { sn } = useDeviceQuery();
  if (!sn) return <Alert color="orange">{t('deviceView.noSn')}</Alert>;
  return (
    <>
      <Group mb="sm">
        <Title order={4}>{t('deviceView.title', { sn })}</Title>
      </Group>
      <ShellTerminal sn={sn} height="calc(100vh - 220px)" />
    </>
  );
}
