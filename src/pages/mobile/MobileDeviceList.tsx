import { Badge, Button, Card, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { labelOf, OnlineState, onlineStateLabels } from '../../../protocol/index.ts';
import { type Device, deviceApi } from '../../api/devices.ts';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { useLivePresence, usePresenceEpoch } from '../../devices/hooks.ts';

// A phone shows about six cards at once; twenty per fetch keeps scrolling smooth without many calls.
const PAGE_SIZE = 20;

/** The phone layout's device list: search, online filter, cards with the live online state, load more. */
export function MobileDeviceList() {
  const { t } = useTranslation();
  const live = useLivePresence();
  const epoch = usePresenceEpoch();
  const [filter, setFilter] = useState('');
  const [sn] = useDebouncedValue(filter.trim(), 300);
  const [state, setState] = useState('all');
  const [pages, setPages] = useState(1);
  const [list, setList] = useState<Device[]>();
  const [total, setTotal] = useState(0);

  const shownEpoch = useRef(epoch);
  useEffect(() => {
    let cancelled = false;
    const onlineState = state === 'all' ? undefined : Number(state);
    // After the socket reopens every page shown loads again (what was heard may be stale); otherwise only the new page.
    const again = shownEpoch.current !== epoch;
    shownEpoch.current = epoch;
    const numbers = again ? Array.from({ length: pages }, (_, i) => i + 1) : [pages];
    Promise.all(numbers.map((pageNum) => deviceApi.list({ pageNum, pageSize: PAGE_SIZE, sn: sn || undefined, onlineState }))).then(
      (loaded) => {
        if (cancelled) return;
        const rows = loaded.flatMap((page) => page.list);
        setTotal(loaded[loaded.length - 1]?.total ?? 0);
        setList((old) => (again || pages === 1 ? rows : [...(old ?? []), ...rows]));
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [sn, state, pages, epoch]);

  const stateLabel = (v: number) => labelOf(onlineStateLabels, v as 1 | 2)?.[currentLanguage] ?? String(v);
  return (
    <Stack gap="sm" data-testid="mobile-device-list">
      <TextInput placeholder={t('mobile.search')} value={filter} onChange={(e) => (setFilter(e.currentTarget.value), setPages(1))} inputMode="search" />
      <SegmentedControl
        fullWidth
        value={state}
        onChange={(v) => (setState(v), setPages(1))}
        data={[{ value: 'all', label: t('device.all') }, ...onlineStateLabels.map((l) => ({ value: String(l.value), label: l[currentLanguage] }))]}
      />
      <Text size="xs" c="dimmed" data-testid="mobile-device-total">
        {t('device.total', { count: total })}
      </Text>
      {list?.length === 0 && (
        <Text ta="center" c="dimmed" my="lg">
          {t('device.empty')}
        </Text>
      )}
      {list?.map((d) => {
        const online = (live[d.sn] ?? d.onlineState) === OnlineState.Online;
        return (
          <Card key={d.sn} withBorder padding="sm" component={Link} href={`/device-view/index?sn=${encodeURIComponent(d.sn)}`} data-sn={d.sn} data-online={online ? 'online' : 'offline'}>
            <Group justify="space-between" wrap="nowrap">
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Text fw={600} truncate>
                  {d.sn}
                </Text>
                <Text size="xs" c="dimmed" truncate>
                  {d.model} · {d.systemVersion}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatDateTime(online ? d.latestOnlineTime : (d.offlineTime ?? d.latestOnlineTime))}
                </Text>
              </Stack>
              <Badge color={online ? 'green' : 'gray'} data-testid="online-state">
                {stateLabel(online ? OnlineState.Online : OnlineState.Offline)}
              </Badge>
            </Group>
          </Card>
        );
      })}
      {list && list.length < total && (
        <Button variant="light" onClick={() => setPages((p) => p + 1)}>
          {t('mobile.loadMore')}
        </Button>
      )}
    </Stack>
  );
}
