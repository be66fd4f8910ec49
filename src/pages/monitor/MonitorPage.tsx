import { Alert, Badge, Button, Card, Group, SegmentedControl, Select, SimpleGrid, Switch, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_GROUP_SNS } from '../../../protocol/api/device-ops.ts';
import { OnlineState } from '../../../protocol/index.ts';
import { type Device, deviceApi } from '../../api/devices.ts';
import { useLivePresence, usePresenceEpoch, useRealtimeStatus } from '../../devices/hooks.ts';
import { createWallThumbnails, useThumbnailUsage, THUMBNAIL_IN_FLIGHT, THUMBNAIL_INTERVAL_MS, THUMBNAIL_MAX_TILES, type ThumbnailPump } from '../../devices/wall.ts';
import { useCan } from '../../state/permissions.ts';
import { GroupControlPanel } from './GroupControlPanel.tsx';
import classes from './MonitorPage.module.css';
import { filterWall, type TileState, tileState, wallCounts, type WallFilter } from './wall.ts';
import { WallTile } from './WallTile.tsx';

/** The largest list page the server gives (platform-core section 9). */
const FETCH_PAGE = 100;
// A wall of 2,000 tiles still reads at a glance on one screen; larger fleets show their counts in full
// and the first 2,000 devices (newest first) as tiles.
export const WALL_LIMIT = 2_000;
const STATES: readonly TileState[] = ['online', 'offline', 'expired', 'inactive'];

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

/**
 * Monitor centre: live online and offline counts and a wall of device tiles driven by presence events, with
 * live thumbnails of the visible tiles (bounded: src/devices/thumbnail-pump.ts), filters, and group control
 * of selected tiles (one input mirrored to each, scaled to each screen; issue 22).
 */
export function MonitorPage() {
  const { t } = useTranslation();
  const can = useCan();
  const live = useLivePresence();
  const epoch = usePresenceEpoch();
  const status = useRealtimeStatus();
  const [wall, setWall] = useState<{ devices: Device[]; total: number }>();
  const [serverOnline, setServerOnline] = useState<number>();
  const [filter, setFilter] = useState<WallFilter>({ sn: '', model: '', state: 'all', system: 'all' });
  const mayCapture = can('device_capture');
  const mayControl = can('device_live_control');
  const [thumbnails, setThumbnails] = useState(true);
  const pictures = mayCapture && thumbnails;
  // Thumbnails for this visit of the page, while they are on; nothing is fetched once it goes.
  const pump = useMemo<ThumbnailPump | undefined>(() => (pictures ? createWallThumbnails() : undefined), [pictures]);
  const [selecting, setSelecting] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [group, setGroup] = useState<readonly string[]>();
  const [capped, setCapped] = useState(false);

  useEffect(() => {
    let cancelled = false;
    loadWall().then((w) => !cancelled && setWall(w), () => undefined);
    // The online count of the whole fleet, for fleets larger than the wall.
    deviceApi.list({ pageNum: 1, pageSize: 10, onlineState: OnlineState.Online }).then((p) => !cancelled && setServerOnline(p.total), () => undefined);
    return () => {
      cancelled = true;
    };
  }, [epoch]);

  useEffect(() => {
    if (!pump) return undefined;
    const p = pump;
    p.start();
    const shown = () => p.pump();
    document.addEventListener('visibilitychange', shown);
    return () => {
      document.removeEventListener('visibilitychange', shown);
      p.stop();
    };
  }, [pump]);

  const isOnline = useCallback((d: Device) => (live[d.sn] ?? d.onlineState) === OnlineState.Online, [live]);
  useEffect(() => {
    pump?.setOnline((wall?.devices ?? []).filter(isOnline).map((d) => d.sn));
  }, [pump, wall, isOnline]);

  // One observer for every tile: a tile on screen is asked for pictures, one scrolled away is not.
  const observer = useRef<IntersectionObserver>(undefined);
  useEffect(() => {
    if (!pump) return undefined;
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const el = e.target as HTMLElement;
        const sn = el.dataset.sn;
        if (sn) pump.setVisible(sn, e.isIntersecting, Number(el.dataset.order ?? 0));
      }
    });
    observer.current = io;
    for (const el of document.querySelectorAll<HTMLElement>('[data-testid="monitor-wall"] [data-sn]')) io.observe(el);
    return () => {
      io.disconnect();
      observer.current = undefined;
    };
  }, [pump]);
  const observe = useCallback((el: HTMLElement | null) => {
    if (el) observer.current?.observe(el);
  }, []);

  const usage = useThumbnailUsage(pump);
  const counts = useMemo(() => (wall ? wallCounts(wall.devices, wall.total, live, serverOnline) : undefined), [wall, live, serverOnline]);
  const tiles = useMemo(() => filterWall(wall?.devices ?? [], filter, live), [wall, filter, live]);

  const toggle = useCallback((sn: string) => {
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(sn)) next.delete(sn);
      else next.add(sn);
      return next;
    });
  }, []);
  const selectShown = () => {
    const online = tiles.filter(isOnline).map((d) => d.sn);
    setCapped(online.length > MAX_GROUP_SNS);
    setSelected(new Set(online.slice(0, MAX_GROUP_SNS)));
  };
  const startGroup = () => {
    const sns = [...selected];
    setCapped(sns.length > MAX_GROUP_SNS);
    setGroup(sns.slice(0, MAX_GROUP_SNS));
    setSelecting(false);
  };
  const grouped = useMemo(() => new Set(group ?? []), [group]);

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

  const wallGrid = (
    <div className={classes.wall} data-testid="monitor-wall" data-pictures={pictures ? 'true' : undefined}>
      {tiles.map((d, i) => (
        <WallTile
          key={d.sn}
          sn={d.sn}
          model={d.model}
          state={tileState(isOnline(d), d.deviceState)}
          order={i}
          pump={pump}
          pictures={pictures}
          selecting={selecting}
          selected={selected.has(d.sn)}
          grouped={grouped.has(d.sn)}
          onToggle={toggle}
          observe={observe}
        />
      ))}
    </div>
  );

  return (
    <>
      <Group justify="space-between" mb="md">
        <Title order={3}>{t('route.monitorCenter')}</Title>
        <Group gap="xs">
          {group && (
            <Badge color="violet" variant="filled" data-testid="group-indicator">
              {t('wall.groupTitle', { count: group.length })}
            </Badge>
          )}
          <Badge color={status === 'open' ? 'green' : 'gray'} variant="dot">
            {t(`shell.realtime.${status}`)}
          </Badge>
        </Group>
      </Group>
      <SimpleGrid cols={3} mb="md">
        {stat(t('monitor.total'), counts?.total, 'var(--mantine-color-text)', 'monitor-total')}
        {stat(t('monitor.online'), counts?.online, 'green', 'monitor-online')}
        {stat(t('monitor.offline'), counts?.offline, 'gray', 'monitor-offline')}
      </SimpleGrid>
      <Group mb="xs" gap="sm" align="center">
        <TextInput size="xs" placeholder={t('monitor.filter')} aria-label={t('monitor.filter')} value={filter.sn} onChange={(e) => setFilter({ ...filter, sn: e.currentTarget.value })} data-testid="monitor-filter" w={150} />
        <TextInput size="xs" placeholder={t('wall.modelFilter')} aria-label={t('wall.modelFilter')} value={filter.model} onChange={(e) => setFilter({ ...filter, model: e.currentTarget.value })} data-testid="monitor-model" w={130} />
        <SegmentedControl
          size="xs"
          value={filter.state}
          onChange={(v) => setFilter({ ...filter, state: v as WallFilter['state'] })}
          data={(['all', 'online', 'offline'] as const).map((s) => ({ value: s, label: t(`wall.state.${s}`) }))}
          data-testid="monitor-state"
        />
        <Select
          size="xs"
          w={130}
          allowDeselect={false}
          value={filter.system}
          onChange={(v) => setFilter({ ...filter, system: (v ?? 'all') as WallFilter['system'] })}
          data={(['all', 'android', 'linux'] as const).map((s) => ({ value: s, label: t(`wall.system.${s}`) }))}
          aria-label={t('wall.system.all')}
        />
        {mayCapture && <Switch size="xs" label={t('wall.thumbnails')} checked={thumbnails} onChange={(e) => setThumbnails(e.currentTarget.checked)} data-testid="monitor-thumbnails" />}
        {wall && (
          <Text size="xs" c="dimmed" data-testid="monitor-shown">
            {t('monitor.shown', { shown: tiles.length, total: wall.total })}
          </Text>
        )}
      </Group>
      <Group mb="sm" gap="sm" justify="space-between">
        <Group gap={10} aria-label={t('wall.legend')}>
          {STATES.map((s) => (
            <Group key={s} gap={4} wrap="nowrap">
              <span className={classes.legendDot} data-state={s} aria-hidden />
              <Text size="xs">{t(`wall.state.${s}`)}</Text>
            </Group>
          ))}
          {pictures && (
            <Text size="xs" c="dimmed" data-testid="monitor-thumb-usage">
              {t('wall.thumbnailsHint', { tiles: THUMBNAIL_MAX_TILES, seconds: THUMBNAIL_INTERVAL_MS / 1000, inFlight: THUMBNAIL_IN_FLIGHT })} · {t('wall.thumbnailsUsage', { count: usage.count, kib: Math.round(usage.bytes / 1024) })}
            </Text>
          )}
        </Group>
        {mayControl && (
          <Group gap="xs">
            <Button size="xs" variant={selecting ? 'filled' : 'default'} onClick={() => setSelecting(!selecting)} data-testid="wall-select">
              {t('wall.select')}
            </Button>
            {selecting && (
              <Button size="xs" variant="default" onClick={selectShown} data-testid="wall-select-shown">
                {t('wall.selectShown')}
              </Button>
            )}
            {selected.size > 0 && (
              <>
                <Text size="xs" data-testid="wall-selected">
                  {t('wall.selected', { count: selected.size })}
                </Text>
                <Button size="xs" variant="subtle" onClick={() => setSelected(new Set())}>
                  {t('wall.clearSelection')}
                </Button>
                <Button size="xs" color="violet" onClick={startGroup} data-testid="wall-start-group">
                  {t('wall.startGroup')}
                </Button>
              </>
            )}
          </Group>
        )}
      </Group>
      {capped && (
        <Alert color="orange" mb="sm" py={6} withCloseButton onClose={() => setCapped(false)}>
          {t('wall.tooMany', { max: MAX_GROUP_SNS })}
        </Alert>
      )}
      {wall?.devices.length === 0 && (
        <Text ta="center" c="dimmed" my="lg">
          {t('monitor.empty')}
        </Text>
      )}
      {group ? (
        <div className={classes.split}>
          <div className={classes.splitWall}>{wallGrid}</div>
          <GroupControlPanel sns={group} pump={pump} onExit={() => setGroup(undefined)} />
        </div>
      ) : (
        wallGrid
      )}
    </>
  );
}
