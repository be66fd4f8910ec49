import { Alert, Anchor, Badge, Group, Tabs, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link, useSearch } from 'wouter';
import { labelOf, OnlineState, onlineStateLabels } from '../../../protocol/index.ts';
import { type Device, deviceApi } from '../../api/devices.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { presence } from '../../realtime/realtime.ts';
import { FilesTab } from './files/FilesTab.tsx';
import { BaseInfoTab, SystemConfigTab, SystemInfoTab, WholeTestTab } from './info/InfoTabs.tsx';
import { LiveView } from './live/LiveView.tsx';
import { LogsTab } from './logs/LogsTab.tsx';
import { RemoteTab } from './remote/RemoteTab.tsx';
import { RuntimeTab } from './runtime/RuntimeTab.tsx';
import { ShellTerminal } from './shell/ShellTerminal.tsx';
import { WhitelistTab } from './whitelist/WhitelistTab.tsx';

const TABS = ['base', 'system', 'runtime', 'wholeTest', 'remote', 'files', 'config', 'shell', 'whitelist', 'logs'] as const;
type Tab = (typeof TABS)[number];

/** The serial and tab of the page's query (?sn=...&tab=...). */
export function useDeviceQuery(): { sn: string; tab: Tab } {
  const q = new URLSearchParams(useSearch());
  const tab = q.get('tab');
  return { sn: q.get('sn') ?? '', tab: (TABS as readonly string[]).includes(tab ?? '') ? (tab as Tab) : 'base' };
}

/** The device row (model, system type, online state) behind a serial, kept live by presence. */
export function useDeviceRow(sn: string): { device: Device | undefined; online: boolean } {
  const [device, setDevice] = useState<Device>();
  const live = useSnapshot(presence).bySn[sn];
  useEffect(() => {
    if (!sn) return;
    let cancelled = false;
    deviceApi.list({ pageNum: 1, pageSize: 10, sn }).then(
      (p) => !cancelled && setDevice(p.list.find((d) => d.sn === sn)),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [sn]);
  return { device, online: (live ?? device?.onlineState) === OnlineState.Online };
}

/** Device view (/device-view/index?sn=): the tabs of devices-and-commerce section 2 for one device. */
export function DeviceViewPage() {
  const { t } = useTranslation();
  const { sn, tab: initial } = useDeviceQuery();
  const [tab, setTab] = useState<Tab>(initial);
  const { device, online } = useDeviceRow(sn);
  if (!sn) return <Alert color="orange">{t('deviceView.noSn')}</Alert>;
  const linux = device?.systemType === 'linux';
  const state = online ? OnlineState.Online : OnlineState.Offline;
  return (
    <>
      <Group mb="md" justify="space-between">
        <Group>
          <Title order={3}>{t('deviceView.title', { sn })}</Title>
          <Badge color={online ? 'green' : 'gray'} data-testid="device-online">
            {labelOf(onlineStateLabels, state)?.[currentLanguage]}
          </Badge>
          {device && (
            <Text c="dimmed" size="sm">
              {device.model} · {device.systemVersion}
            </Text>
          )}
        </Group>
        <Anchor component={Link} href="/device-management/index">
          {t('deviceView.back')}
        </Anchor>
      </Group>
      {!online && device && (
        <Alert color="gray" mb="sm" data-testid="device-offline">
          {t('deviceView.offline')}
        </Alert>
      )}
      <Tabs value={tab} onChange={(v) => v && setTab(v as Tab)} keepMounted={false}>
        <Tabs.List mb="md">
          {TABS.map((k) => (
            <Tabs.Tab key={k} value={k} data-testid={`tab-${k}`}>
              {t(`deviceView.tabs.${k}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="base">
          <BaseInfoTab sn={sn} online={online} />
        </Tabs.Panel>
        <Tabs.Panel value="system">
          <SystemInfoTab sn={sn} online={online} />
        </Tabs.Panel>
        <Tabs.Panel value="runtime">
          <RuntimeTab sn={sn} online={online} />
        </Tabs.Panel>
        <Tabs.Panel value="wholeTest">
          <WholeTestTab sn={sn} online={online} />
        </Tabs.Panel>
        <Tabs.Panel value="remote">
          <RemoteTab sn={sn} online={online} linux={linux} live={<LiveView sn={sn} />} />
        </Tabs.Panel>
        <Tabs.Panel value="files">
          <FilesTab sn={sn} online={online} />
        </Tabs.Panel>
        <Tabs.Panel value="config">
          <SystemConfigTab sn={sn} online={online} />
        </Tabs.Panel>
        <Tabs.Panel value="shell">
          <Group justify="flex-end" mb="xs">
            <Anchor component={Link} href={`/device-view/webssh?sn=${encodeURIComponent(sn)}`}>
              {t('deviceView.shell.openPage')}
            </Anchor>
          </Group>
          <ShellTerminal sn={sn} />
        </Tabs.Panel>
        <Tabs.Panel value="whitelist">
          <WhitelistTab sn={sn} online={online} linux={linux} />
        </Tabs.Panel>
        <Tabs.Panel value="logs">
          <LogsTab sn={sn} online={online} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
