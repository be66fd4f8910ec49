import { Badge, Card, Group, RingProgress, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type DashboardReport, reportApi } from '../../api/reports.ts';
import { usePresenceChanges } from '../../devices/hooks.ts';
import { countryName } from '../reports/countries.ts';
import { formatBytes, formatDateTime, formatPercent, formatRatio } from '../reports/format.ts';
import { seriesColour } from '../reports/palette.ts';
import { Chart } from '../reports/Chart.tsx';

// Presence events arrive in bursts; counting again at most once a second keeps the server load flat.
const RECOUNT_AFTER_MS = 1_000;
// Usage, top five and alerts come from status uploads (one a minute per device); a minute's refresh follows them.
const REFRESH_MS = 60_000;

/** Hours of the trend a viewer can choose: the last day or the whole week the server sends. */
type TrendSpan = '24' | '168';

/** The trend's hour labels in the viewer's zone: 'HH:00' for a day, 'MM-dd HH:00' for a week. */
function hourLabels(hours: readonly number[], span: TrendSpan): string[] {
  return hours.map((h) => {
    const d = formatDateTime(h);
    return span === '24' ? d.slice(11, 16) : d.slice(5, 16);
  });
}

/** Dashboard: totals, live online count, usage, trends, top five, locations, models and high-usage alerts. */
export function DashboardPage() {
  const { t, i18n } = useTranslation();
  const changes = usePresenceChanges();
  const [data, setData] = useState<DashboardReport>();
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(
      () => {
        reportApi.dashboard().then(
          (d) => !cancelled && setData(d),
          () => undefined,
        );
      },
      data ? RECOUNT_AFTER_MS : 0,
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // Recount on presence changes and on the refresh tick; `data` decides the delay, not whether to run.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [changes, tick]);

  const totals = data?.totals;
  const cards = [
    { label: t('dashboard.totalDevices'), value: totals?.devices, testId: 'total' },
    { label: t('reports.dashboard.liveOnline'), value: totals?.online, testId: 'online' },
    { label: t('dashboard.offline'), value: totals?.offline, testId: 'offline' },
    { label: t('reports.dashboard.organisations'), value: totals?.organisations, testId: 'organisations' },
    { label: t('reports.dashboard.accounts'), value: totals?.accounts, testId: 'accounts' },
    { label: t('reports.dashboard.abnormalToday'), value: totals?.abnormalToday, testId: 'abnormal' },
  ];
  const locLabels = useMemo(() => data?.locations.map((l) => l.country) ?? [], [data]);
  const locSeries = useMemo(() => (data ? [{ label: t('reports.location.devices'), values: data.locations.map((l) => l.devices) }] : []), [data, t]);
  const modelTotal = data?.models.reduce((n, m) => n + m.devices, 0) ?? 0;
  const [span, setSpan] = useState<TrendSpan>('24');
  const trend = useMemo(() => {
    if (!data) return undefined;
    const n = Number(span);
    const hours = data.trend.hours.slice(-n);
    const online = data.trend.online.slice(-n);
    const abnormal = data.trend.abnormal.slice(-n);
    return {
      labels: hourLabels(hours, span),
      online: [{ label: t('reports.dashboard.onlineTrend'), values: online }],
      abnormal: [{ label: t('reports.dashboard.abnormalTrend'), values: abnormal }],
      empty: online.every((v) => v === 0) && abnormal.every((v) => v === 0),
    };
  }, [data, span, t]);

  return (
    <>
      <Title order={3} mb="md">
        {t('route.dashboard')}
      </Title>
      <SimpleGrid cols={{ base: 2, md: 3, xl: 6 }} mb="md">
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
      <SimpleGrid cols={{ base: 1, lg: 3 }} mb="md">
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.dashboard.usage')}
          </Text>
          <Group>
            <RingProgress
              size={120}
              thickness={12}
              label={
                <Text ta="center" size="sm" data-testid="dashboard-online-share">
                  {totals ? formatRatio(totals.devices ? totals.online / totals.devices : 0) : '—'}
                </Text>
              }
              sections={[
                {
                  value: totals?.devices ? (totals.online / totals.devices) * 100 : 0,
                  color: seriesColour(0),
                  tooltip: t('reports.dashboard.onlineShareTip', { online: totals?.online ?? 0, devices: totals?.devices ?? 0 }),
                },
              ]}
            />
            <Stack gap={4}>
              <Text size="sm">
                {t('reports.dashboard.onlineShare')}
              </Text>
              <Text size="sm">
                {t('reports.dashboard.avgCpu')}: <b data-testid="dashboard-cpu">{data ? formatPercent(data.usage.avgCpu) : '—'}</b>
              </Text>
              <Text size="sm">
                {t('reports.dashboard.memory')}: <b data-testid="dashboard-memory">{data ? `${formatBytes(data.usage.memUsed)} / ${formatBytes(data.usage.memTotal)}` : '—'}</b>
              </Text>
              <Text size="xs" c="dimmed">
                {t('reports.dashboard.reporting', { count: data?.usage.reporting ?? 0 })}
              </Text>
            </Stack>
          </Group>
        </Card>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.dashboard.models')}
          </Text>
          <Group>
            <RingProgress
              size={120}
              thickness={12}
              sections={(data?.models ?? []).map((m, i) => ({ value: modelTotal ? (m.devices / modelTotal) * 100 : 0, color: seriesColour(i), tooltip: `${m.model}: ${m.devices}` }))}
            />
            <Stack gap={2}>
              {data?.models.length === 0 && (
                <Text size="sm" c="dimmed">
                  {t('reports.dashboard.noData')}
                </Text>
              )}
              {data?.models.map((m, i) => (
                <Text key={m.model} size="xs">
                  <span style={{ color: seriesColour(i) }}>●</span> {m.model} {m.devices}
                </Text>
              ))}
            </Stack>
          </Group>
        </Card>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.dashboard.locations')}
          </Text>
          {data && data.locations.length === 0 && (
            <Text size="sm" c="dimmed">
              {t('reports.dashboard.noData')}
            </Text>
          )}
          {data && data.locations.length > 0 && <Chart testId="dashboard-locations" labels={locLabels} series={locSeries} kind="bars" integers height={140} />}
          <Group gap={4} mt={4}>
            {data?.locations.slice(0, 5).map((l) => (
              <Badge key={l.country} variant="light" tt="none" leftSection={<b>{l.country}</b>}>
                {countryName(l.country, i18n.language)} {l.devices}
              </Badge>
            ))}
          </Group>
        </Card>
      </SimpleGrid>
      <Card withBorder mb="md" data-testid="dashboard-trends">
        <Group justify="space-between" mb="xs">
          <Text fw={600}>{t('reports.dashboard.trends')}</Text>
          <SegmentedControl
            size="xs"
            value={span}
            onChange={(v) => setSpan(v === '168' ? '168' : '24')}
            data={[
              { value: '24', label: t('reports.dashboard.last24h') },
              { value: '168', label: t('reports.dashboard.last7d') },
            ]}
            data-testid="dashboard-trend-span"
          />
        </Group>
        {trend?.empty && (
          <Text size="sm" c="dimmed" data-testid="dashboard-trend-empty">
            {t('reports.dashboard.noTrend')}
          </Text>
        )}
        {trend && !trend.empty && (
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <div>
              <Text size="sm" c="dimmed">
                {t('reports.dashboard.onlineTrend')}
              </Text>
              <Chart testId="dashboard-trend-online" labels={trend.labels} series={trend.online} yMin={0} integers skipLabels hoverValues xLabel={t('reports.dashboard.hour')} height={200} />
            </div>
            <div>
              <Text size="sm" c="dimmed">
                {t('reports.dashboard.abnormalTrend')}
              </Text>
              <Chart testId="dashboard-trend-abnormal" labels={trend.labels} series={trend.abnormal} kind="bars" integers skipLabels hoverValues xLabel={t('reports.dashboard.hour')} height={200} />
            </div>
          </SimpleGrid>
        )}
      </Card>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.dashboard.topFive')}
          </Text>
          <Table data-testid="dashboard-top-five">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>SN</Table.Th>
                <Table.Th>{t('reports.multiModel.model')}</Table.Th>
                <Table.Th>CPU</Table.Th>
                <Table.Th>{t('reports.abnormal.memory')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data?.topFive.length === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={4}>
                    <Text size="sm" c="dimmed" ta="center">
                      {t('reports.dashboard.noData')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
              {data?.topFive.map((d) => (
                <Table.Tr key={d.sn}>
                  <Table.Td>{d.sn}</Table.Td>
                  <Table.Td>{d.model}</Table.Td>
                  <Table.Td>{formatPercent(d.cpu)}</Table.Td>
                  <Table.Td>
                    {formatBytes(d.memUsed)} / {formatBytes(d.memTotal)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
        <Card withBorder>
          <Text fw={600} mb="xs">
            {t('reports.dashboard.alerts')}
          </Text>
          {data && data.alerts.length === 0 && (
            <Text size="sm" c="dimmed">
              {t('reports.dashboard.noAlerts', data.thresholds)}
            </Text>
          )}
          <Stack gap={4} data-testid="dashboard-alerts">
            {data?.alerts.map((a) => (
              <Group key={a.sn} gap="xs">
                <Badge color="red" variant="light">
                  {a.sn}
                </Badge>
                <Text size="sm">
                  CPU {formatPercent(a.cpu)} · {t('reports.abnormal.memory')} {formatPercent(a.memory)}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatDateTime(a.time)}
                </Text>
              </Group>
            ))}
          </Stack>
        </Card>
      </SimpleGrid>
    </>
  );
}
