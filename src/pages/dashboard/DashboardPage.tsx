import { Card, SimpleGrid, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { OnlineState } from '../../../protocol/index.ts';
import { deviceApi } from '../../api/devices.ts';
import { presence } from '../../realtime/realtime.ts';

interface Totals {
  total: number;
  online: number;
}

// Presence events arrive in bursts; counting again at most once a second keeps the server load flat.
const RECOUNT_AFTER_MS = 1_000;

/** Dashboard: fleet totals, recounted when the gateway reports presence changes (no polling). */
export function DashboardPage() {
  const { t } = useTranslation();
  const { changes } = useSnapshot(presence);
  const [totals, setTotals] = useState<Totals>();

  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(
      () => {
        Promise.all([deviceApi.list({ pageNum: 1, pageSize: 10 }), deviceApi.list({ pageNum: 1, pageSize: 10, onlineState: OnlineState.Online })]).then(
          ([all, online]) => !cancelled && setTotals({ total: all.total, online: online.total }),
          () => undefined,
        );
      },
      totals ? RECOUNT_AFTER_MS : 0,
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // Recount on presence changes only; `totals` decides the delay, not whether to run.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [changes]);

  const cards = [
    { label: t('dashboard.totalDevices'), value: totals?.total, testId: 'total' },
    { label: t('dashboard.online'), value: totals?.online, testId: 'online' },
    { label: t('dashboard.offline'), value: totals && totals.total - totals.online, testId: 'offline' },
  ];
  return (
    <>
      <Title order={3} mb="md">
        {t('route.dashboard')}
      </Title>
      <SimpleGrid cols={3}>
        {cards.map((c) => (
          <Card key={c.testId} withBorder>
            <Text c="dimmed" size="sm">
              {c.label}
            </Text>
            <Text fw={700} size="xl" data-testid={`dashboard-${c.testId}`}>
              {c.value ?? '—'}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </>
  );
}
