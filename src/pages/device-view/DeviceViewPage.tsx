import { Alert, Anchor, Badge, Group, Tabs, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DeviceActivity } from './activity/DeviceActivity.tsx';
import { DeviceFieldsSection } from './fields/DeviceFieldsSection.tsx';
import { Link, useLocation, useSearch } from 'wouter';
import { labelOf, OnlineState, onlineStateLabels } from '../../../protocol/index.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { useCan } from '../../state/permissions.ts';
import { FilesTab } from './files/FilesTab.tsx';
import { BaseInfoTab, SystemConfigTab, SystemInfoTab, WholeTestTab } from './info/InfoTabs.tsx';
import { LiveView } from './live/LiveView.tsx';
import { LogsTab } from './logs/LogsTab.tsx';
import { RemoteTab } from './remote/RemoteTab.tsx';
import { RuntimeTab } from './runtime/RuntimeTab.tsx';
import { ShellTerminal } from './shell/ShellTerminal.tsx';
import { chooseTab, deviceViewHref, type Tab, visibleTabs } from './tab-access.ts';
import { useDeviceRow } from './use-device-row.ts';
import { WhitelistTab } from './whitelist/WhitelistTab.tsx';
import { TimelineTab } from './timeline/TimelineTab.tsx';

/** The serial and the requested tab of the page's query (?sn=...&tab=...); the tab is checked against the user's tabs by the page. */
export function useDeviceQuery(): { sn: string; tab: string | null } {
  const q = new URLSearchParams(useSearch());
  return { sn: q.get('sn') ?? '', tab: q.get('tab') };
}

/**
 * Device view (/device-view/index?sn=&tab=): the tabs of devices-and-commerce section 2 for one device,
 * each shown only to a user holding its permission key (tab-access.ts). The tab lives in the address, so
 * the list can open a chosen tab and a reload keeps it.
 */
export function DeviceViewPage() {
  const { t } = useTranslation();
  const { sn, tab: requested } = useDeviceQuery();
  const [, navigate] = useLocation();
  const can = useCan();
  const { device, online, reload } = useDeviceRow(sn);
  const tabs = visibleTabs(can, device?.systemType);
  const tab = chooseTab(requested, tabs);
  const setTab = (next: Tab) => navigate(deviceViewHref(sn, next), { replace: true });
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
        <Group>
          {can('recording_list') && (
            <Anchor component={Link} href={`/recording-management/index?sn=${encodeURIComponent(sn)}`} data-testid="device-recordings">
              {t('recordings.openRecordings')}
            </Anchor>
          )}
          <Anchor component={Link} href="/device-management/index">
            {t('deviceView.back')}
          </Anchor>
        </Group>
      </Group>
      {!online && device && (
        <Alert color="gray" mb="sm" data-testid="device-offline">
          {t('deviceView.offline')}
        </Alert>
      )}
      {device && <DeviceFieldsSection sn={sn} values={device.fields ?? {}} canEdit={can('device_remark')} onSaved={reload} />}
      <DeviceActivity sn={sn} />
      {tab === undefined && (
        <Alert color="orange" data-testid="device-no-tabs">
          {t('deviceView.noTabs')}
        </Alert>
      )}
      <Tabs value={tab ?? null} onChange={(v) => v && setTab(v as Tab)} keepMounted={false}>
        <Tabs.List mb="md">
          {tabs.map((k) => (
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
          <WholeTestTab sn={sn} online={online} can={can} />
        </Tabs.Panel>
        <Tabs.Panel value="remote">
          {/* Without the live view key the live view is not mounted at all, so it cannot start a stream. */}
          <RemoteTab sn={sn} online={online} linux={linux} live={can('device_live_view') ? <LiveView sn={sn} /> : null} />
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
        <Tabs.Panel value="timeline">
          <TimelineTab sn={sn} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
