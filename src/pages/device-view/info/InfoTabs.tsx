import { Alert, Badge, Button, Group, SimpleGrid, Table, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { lastValueFrom } from 'rxjs';
import {
  Command,
  commandPermission,
  labelOf,
  networkTypeLabels,
  Result,
  SUPPORT_FLAGS,
  type ReplyOf,
  systemTypeLabels,
} from '../../../../protocol/index.ts';
import { askDevice, deviceFile, replyMessage } from '../../../devices/commands.ts';
import { currentLanguage, i18next } from '../../../i18n/index.ts';
import { useRealtimeOpen } from '../../../devices/hooks.ts';
import { formatBytes, formatUptime } from '../format.ts';

/** Asks the device once per mount (and on refresh) and keeps the answer. */
function useDeviceAnswer<K extends typeof Command.BaseInfo | typeof Command.SystemInfo>(sn: string, msgId: K, online: boolean) {
  const [data, setData] = useState<ReplyOf<K>>();
  const [error, setError] = useState<string>();
  const [nonce, setNonce] = useState(0);
  const connected = useRealtimeOpen();
  useEffect(() => {
    if (!connected) return;
    let cancelled = false;
    askDevice(msgId, sn).then(
      (reply) => {
        if (cancelled) return;
        if (reply.result === Result.Success) {
          setData(reply.data);
          setError(undefined);
        } else setError(replyMessage(reply));
      },
      (err: unknown) => !cancelled && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      cancelled = true;
    };
  }, [sn, msgId, online, nonce, connected]);
  return { data, error, load: () => setNonce((n) => n + 1) };
}

function Rows({ rows }: { rows: readonly [string, string | number | undefined][] }) {
  return (
    <Table withTableBorder withColumnBorders data-testid="info-table">
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Th w={220}>{k}</Table.Th>
            <Table.Td>{v ?? ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

const capacity = (c: { free: number; total: number } | undefined) => (c ? `${formatBytes(c.free)} / ${formatBytes(c.total)}` : undefined);

function Refresh({ onClick }: { onClick: () => void }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end" mb="xs">
      <Button size="xs" variant="default" onClick={onClick}>
        {t('deviceView.refresh')}
      </Button>
    </Group>
  );
}

/** Base info tab (65612). */
export function BaseInfoTab({ sn, online }: { sn: string; online: boolean }) {
  const { t } = useTranslation();
  const { data, error, load } = useDeviceAnswer(sn, Command.BaseInfo, online);
  const f = (k: string) => t(`deviceView.field.${k}`);
  return (
    <>
      <Refresh onClick={() => void load()} />
      {error && <Alert color="red" mb="sm">{error}</Alert>}
      {data && (
        <Rows
          rows={[
            [f('model'), data.model],
            [f('systemType'), labelOf(systemTypeLabels, data.systemType)?.[currentLanguage] ?? data.systemType],
            [f('systemVersion'), data.systemVersion],
            [f('imageVersion'), data.imageVersion],
            [f('networkType'), labelOf(networkTypeLabels, data.networkType as 0 | 1 | 2 | 3)?.[currentLanguage] ?? data.networkType],
            [f('hostname'), data.hostname],
            [f('kernel'), data.kernel],
            [f('memory'), capacity(data.memory)],
            [f('storage'), capacity(data.storage)],
            [f('macs'), data.macs?.map((m) => `${m.name} ${m.mac}`).join(', ')],
            [f('uptime'), formatUptime(data.uptime)],
          ]}
        />
      )}
    </>
  );
}

/** System info tab (65613). */
export function SystemInfoTab({ sn, online }: { sn: string; online: boolean }) {
  const { t } = useTranslation();
  const { data, error, load } = useDeviceAnswer(sn, Command.SystemInfo, online);
  const f = (k: string) => t(`deviceView.field.${k}`);
  return (
    <>
      <Refresh onClick={() => void load()} />
      {error && <Alert color="red" mb="sm">{error}</Alert>}
      {data && (
        <Rows
          rows={[
            [f('manufacturer'), data.manufacturer],
            [f('model'), data.model],
            [f('systemVersion'), data.systemVersion],
            [f('kernel'), data.kernel],
            [f('arch'), data.arch],
            [f('cpuModel'), data.cpuModel],
            [f('cpuCores'), data.cpuCores],
            [f('memory'), capacity(data.memory)],
            [f('storage'), capacity(data.storage)],
            [f('wlanMac'), data.wlanMac],
            [f('bluetoothMac'), data.bluetoothMac],
            [f('imei'), data.imei],
            [f('basebandVersion'), data.basebandVersion],
            [f('uptime'), formatUptime(data.uptime)],
          ]}
        />
      )}
    </>
  );
}

/** System config tab: the device's support flags (devices-and-commerce section 3). */
export function SystemConfigTab({ sn, online }: { sn: string; online: boolean }) {
  const { t } = useTranslation();
  const { data, error, load } = useDeviceAnswer(sn, Command.SystemInfo, online);
  return (
    <>
      <Refresh onClick={() => void load()} />
      {error && <Alert color="red" mb="sm">{error}</Alert>}
      {data && (
        <SimpleGrid cols={{ base: 2, md: 3 }} data-testid="support-flags">
          {SUPPORT_FLAGS.map((flag) => (
            <Group key={flag} gap="xs">
              <Badge color={data.support[flag] ? 'green' : 'gray'} variant="light">
                {data.support[flag] ? t('deviceView.support.on') : t('deviceView.support.off')}
              </Badge>
              <Text size="sm">{t(`deviceView.support.${flag}`)}</Text>
            </Group>
          ))}
        </SimpleGrid>
      )}
    </>
  );
}

interface Check {
  readonly key: string;
  readonly ok: boolean;
  readonly detail: string;
}

const verdict = (reply: Parameters<typeof replyMessage>[0]) => ({ ok: reply.result === Result.Success, message: replyMessage(reply) });

/**
 * Runs each read-only command once, in order, reporting every check as it completes. A check whose
 * permission key the user lacks is left out rather than run into a certain refusal.
 */
async function runWholeTest(sn: string, can: (...keys: string[]) => boolean, onCheck: (check: Check) => void): Promise<void> {
  // Each check needs the key of the command it sends (the catalogue's COMMAND_RIGHTS).
  const steps: [string, number, () => Promise<{ ok: boolean; message: string }>][] = [
    ['base', Command.BaseInfo, async () => verdict(await askDevice(Command.BaseInfo, sn))],
    ['system', Command.SystemInfo, async () => verdict(await askDevice(Command.SystemInfo, sn))],
    ['runtime', Command.RuntimeQuery, async () => verdict(await askDevice(Command.RuntimeQuery, sn, { limit: 5 }))],
    ['files', Command.FileList, async () => verdict(await askDevice(Command.FileList, sn, { path: '' }))],
    [
      'screenshot',
      Command.Screenshot,
      async () => {
        const done = await lastValueFrom(deviceFile(sn, Command.Screenshot));
        return done.kind === 'done' ? verdict(done.reply) : { ok: false, message: '' };
      },
    ],
  ];
  for (const [key, msgId, step] of steps) {
    const permission = commandPermission(msgId);
    if (permission === undefined || !can(permission)) continue;
    const started = performance.now();
    try {
      const r = await step();
      onCheck({ key, ok: r.ok, detail: r.ok ? i18next.t('deviceView.wholeTest.roundTrip', { ms: Math.round(performance.now() - started) }) : r.message });
    } catch (err) {
      onCheck({ key, ok: false, detail: err instanceof Error ? err.message : String(err) });
    }
  }
}

/** Whole test: runs each read-only command once and reports pass or fail with its round trip. */
export function WholeTestTab({ sn, online, can }: { sn: string; online: boolean; can: (...keys: string[]) => boolean }) {
  const { t } = useTranslation();
  const [checks, setChecks] = useState<readonly Check[]>([]);
  const [running, setRunning] = useState(false);
  const run = async () => {
    setRunning(true);
    setChecks([]);
    await runWholeTest(sn, can, (check) => setChecks((c) => [...c, check]));
    setRunning(false);
  };
  return (
    <>
      <Button mb="sm" loading={running} disabled={!online} onClick={() => void run()}>
        {t('deviceView.wholeTest.run')}
      </Button>
      {!online && <Alert color="gray">{t('deviceView.offline')}</Alert>}
      <Table data-testid="whole-test">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('deviceView.wholeTest.check')}</Table.Th>
            <Table.Th>{t('deviceView.wholeTest.result')}</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {checks.map((c) => (
            <Table.Tr key={c.key}>
              <Table.Td>{t(`deviceView.wholeTest.${c.key}`)}</Table.Td>
              <Table.Td>
                <Badge color={c.ok ? 'green' : 'red'}>{c.ok ? t('deviceView.wholeTest.pass') : t('deviceView.wholeTest.fail')}</Badge>
              </Table.Td>
              <Table.Td>{c.detail}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}
