import { Badge, Card, Group, SimpleGrid, Switch, Text, TextInput, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { OnlineState } from '../../../protocol/index.ts';
import { type Device, deviceApi } from '../../api/devices.ts';
import { useLivePresence, usePresenceEpoch, useRealtimeStatus } from '../../devices/hooks.ts';
import classes from './MonitorPage.module.css';
import { wallCounts } from './wall.ts';

/** The largest list page the server gives (platform-core section 9). */
const FETCH_PAGE = 100;
// A wall of 2,000 tiles still reads at a glance on one screen; larger fleets show their counts in full
// and the first 2,000 devices (newest first) as tiles.
export const WALL_LIMIT = 2_000;

async function loadWall(): Promise<{ devices: Device[]; total: number }> {
  const devices: Device[] = [];
  let total = 0;
  for (let pageNum = 1; devices.length < WALL_LIMIT; pageNum++) {
    const page = await deviceApi.list({ pageNum, pageSize: FETCH_PAGE });
    total = page.total;
    devices.push(...page.list);
    if (page.list.length < FETCH_PAGE || devices.length >= total) break;
  }
  return { devices: devices.slice(0, WALL_LIMIT), total };
}

/** Monitor centre: live online and offline counts and a wall of device tiles, driven by presence events. */
export function MonitorPage() {
  const { t } = useTranslation();
  const live = useLivePresence();
  const epoch = usePresenceEpoch();
  const status = useRealtimeStatus();
  const [wall, setWall] = useState<{ devices: Device[]; total: number }>();
  const [serverOnline, setServerOnline] = useState<number>();
  const [filter, setFilter] = useState('');
  const [onlyOnline, setOnlyOnline] = useState(false);

  useEffect(() => {
    let cancelled = false;
    loadWall().then((w) => !cancelled && setWall(w), () => undefined);
    // The online count of the whole fleet, for fleets larger than the wall.
    deviceApi.list({ pageNum: 1, pageSize: 10, onlineState: OnlineState.Online }).then((p) => !cancelled && setServerOnline(p.total), () => undefined);
    return () => {
      cancelled = true;
    };
  }, [epoch]);

  const counts = useMemo(() => (wall ? wallCounts(wall.devices, wall.total, live, serverOnline) : undefined), [wall, live, serverOnline]);
  const needle = filter.trim().toLowerCase();
  const tiles = (wall?.devices ?? []).filter((d) => {
    if (needle && !d.sn.toLowerCase().includes(needle)) return false;
    return !onlyOnline || (live[d.sn] ?? d.onlineState) === OnlineState.Online;
  });

  const stat = (label: string, value: number | undefined, color: string, testId: string) => (
    <Card withBorder padding="sm">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl" c={color} data-testid={testId}>
        {value ?? '—'}
      </Text>
    </Card>
  );

  return (
    <>
      <Group justify="space-between" mb="md">
        <Title order={3}>{t('route.monitorCenter')}</Title>
        <Badge color={status === 'open' ? 'green' : 'gray'} variant="dot">
          {t(`shell.realtime.${status}`)}
        </Badge>
      </Group>
      <SimpleGrid cols={3} mb="md">
        {stat(t('monitor.total'), counts?.total, 'var(--mantine-color-text)', 'monitor-total')}
        {stat(t('monitor.online'), counts?.online, 'green', 'monitor-online')}
        {stat(t('monitor.offline'), counts?.offline, 'gray', 'monitor-offline')}
      </SimpleGrid>
      <Group mb="sm">
        <TextInput placeholder={t('monitor.filter')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} data-testid="monitor-filter" />
        <Switch label={t('monitor.onlyOnline')} checked={onlyOnline} onChange={(e) => setOnlyOnline(e.currentTarget.checked)} />
        {wall && (
          <Text size="xs" c="dimmed">
            {t('monitor.shown', { shown: tiles.length, total: wall.total })}
          </Text>
        )}
      </Group>
      {wall?.devices.length === 0 && (
        <Text ta="center" c="dimmed" my="lg">
          {t('monitor.empty')}
        </Text>
      )}
      <div className={classes.wall} data-testid="monitor-wall">
        {tiles.map((d) => {
          const online = (live[d.sn] ?? d.onlineState) === OnlineState.Online;
          return (
            <Tooltip key={d.sn} label={`${d.sn} · ${d.model}`} openDelay={300}>
              <UnstyledButton component={Link} href={`/device-view/index?sn=${encodeURIComponent(d.sn)}`} className={classes.tile} data-online={online ? 'online' : 'offline'} data-sn={d.sn}>
                {d.sn}
              </UnstyledButton>
            </Tooltip>
          );
        })}
      </div>
    </>
  );
}
