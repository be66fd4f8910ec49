import { Alert, Badge, Grid, ScrollArea, Table, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Command, labelOf, processStateLabels, Result, type RuntimeInfoReply } from '../../../../protocol/index.ts';
import { askDevice, replyMessage } from '../../../devices/commands.ts';
import { currentLanguage } from '../../../i18n/index.ts';
import { useRealtimeOpen } from '../../../devices/hooks.ts';
import { formatBytes } from '../format.ts';
import { LiveChart } from './LiveChart.tsx';

/** How often the runtime tab samples the device; a chart of 60 points shows the last three minutes. */
export const RUNTIME_EVERY_MS = 3_000;
const POINTS = 60;

interface Series {
  readonly times: number[];
  readonly cpu: number[];
  readonly memory: number[];
}

/** Runtime tab: processes with the spec's single-letter states, CPU and memory as live charts. */
export function RuntimeTab({ sn, online }: { sn: string; online: boolean }) {
  const { t } = useTranslation();
  const [sample, setSample] = useState<RuntimeInfoReply>();
  const [series, setSeries] = useState<Series>({ times: [], cpu: [], memory: [] });
  const [error, setError] = useState<string>();

  const connected = useRealtimeOpen();
  useEffect(() => {
    if (!online || !connected) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const reply = await askDevice(Command.RuntimeQuery, sn, { limit: 200 });
        if (stopped) return;
        if (reply.result === Result.Success) {
          const s = reply.data;
          setSample(s);
          setError(undefined);
          setSeries((prev) => ({
            times: [...prev.times, s.time / 1000].slice(-POINTS),
            cpu: [...prev.cpu, s.cpu].slice(-POINTS),
            memory: [...prev.memory, s.memory.total ? Math.round((1 - s.memory.free / s.memory.total) * 1000) / 10 : 0].slice(-POINTS),
          }));
        } else setError(replyMessage(reply));
      } catch (err) {
        if (!stopped) setError(err instanceof Error ? err.message : String(err));
      }
      if (!stopped) timer = setTimeout(() => void tick(), RUNTIME_EVERY_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [sn, online, connected]);

  return (
    <>
      {!online && <Alert color="gray" mb="sm">{t('deviceView.runtime.paused')}</Alert>}
      {error && <Alert color="red" mb="sm">{error}</Alert>}
      <Grid mb="md">
        <Grid.Col span={{ base: 12, md: 6 }}>
          <LiveChart title={t('deviceView.runtime.cpu')} times={series.times} values={series.cpu} color="#1890ff" testId="cpu-chart" />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <LiveChart title={t('deviceView.runtime.memory')} times={series.times} values={series.memory} color="#52c41a" testId="memory-chart" />
        </Grid.Col>
      </Grid>
      <Text fw={500} mb="xs">
        {t('deviceView.runtime.processes', { count: sample?.processCount ?? 0 })}
      </Text>
      <ScrollArea h={420}>
        <Table striped highlightOnHover data-testid="process-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('deviceView.runtime.pid')}</Table.Th>
              <Table.Th>{t('deviceView.runtime.name')}</Table.Th>
              <Table.Th>{t('deviceView.runtime.state')}</Table.Th>
              <Table.Th>{t('deviceView.runtime.cpuShare')}</Table.Th>
              <Table.Th>{t('deviceView.runtime.rss')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sample?.processes.map((p) => (
              <Table.Tr key={p.pid} data-pid={p.pid}>
                <Table.Td>{p.pid}</Table.Td>
                <Table.Td>{p.name}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={p.state === 'R' ? 'green' : p.state === 'Z' || p.state === 'X' || p.state === 'D' ? 'red' : 'gray'} data-testid="process-state">
                    {p.state} {labelOf(processStateLabels, p.state)?.[currentLanguage] ?? ''}
                  </Badge>
                </Table.Td>
                <Table.Td>{p.cpu.toFixed(1)}</Table.Td>
                <Table.Td>{formatBytes(p.rss)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </>
  );
}
