import { Badge, Button, Card, Group, Image, SimpleGrid, Stack, Switch, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type AppInfo, Command, type OtaListReply, Result, type ResultCode } from '../../../../protocol/index.ts';
import { deviceOpsApi, type PendingCommand } from '../../../api/device-ops.ts';
import { useDeviceMessages } from '../../../devices/channel.ts';
import { useGroupControlMark } from '../../../devices/group-marks.ts';
import { askDevice, heldChanged, resultText, sendCommand, toastError, toastReply, viewTarget } from '../../../devices/commands.ts';
import { formatDateTime } from '../../../format/date.ts';
import { useSnapshot } from 'valtio';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { useCan } from '../../../state/permissions.ts';
import { captureScreenshot } from './screenshot.ts';
import { SshConfigForm } from './SshConfigForm.tsx';

/** How long a command chosen for later waits for its device. */
const HOLD_SECONDS = 86_400;

interface Pending {
  readonly title: string;
  readonly message: string;
  readonly run: () => Promise<void>;
}

/**
 * Sends a command from the device view (src/devices/commands.ts `sendCommand` in the view's words: Linux
 * and offline refusals at once, repeated clicks refused, held for an offline device when `holdSeconds` is
 * given, the outcome toasted); true when the device did it or the command is held.
 */
export async function guardedCommand(opts: { sn: string; online: boolean; linux: boolean; msgId: number; data?: unknown; holdSeconds?: number }): Promise<boolean> {
  const outcome = await sendCommand(viewTarget(opts.sn, opts.online, opts.linux), opts.msgId, opts.data ?? {}, { voice: 'view', hold: opts.holdSeconds });
  return outcome.kind === 'held' || (outcome.kind === 'reply' && outcome.ok);
}

/** Commands held for this device and how they ended. */
function HeldCommands({ sn, online }: { sn: string; online: boolean }) {
  const { t } = useTranslation();
  const bump = useSnapshot(heldChanged).n;
  const [list, setList] = useState<readonly PendingCommand[]>([]);
  // The gateway announces each held command's end (196610): reload then.
  useDeviceMessages((batch) => {
    if (batch.some((e) => e.msgId === Command.HeldCommandDone && e.sn === sn)) heldChanged.n++;
  });
  useEffect(() => {
    let cancelled = false;
    deviceOpsApi.pending(sn).then(
      (r) => !cancelled && setList(r.list),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [sn, online, bump]);
  if (list.length === 0) return null;
  const name = (msgId: number) => Object.entries(Command).find(([, id]) => id === msgId)?.[0] ?? String(msgId);
  return (
    <Card withBorder data-testid="held-commands">
      <Title order={5} mb="sm">
        {t('deviceView.remote.held')}
      </Title>
      <Table>
        <Table.Tbody>
          {list.map((h) => (
            <Table.Tr key={h.id}>
              <Table.Td>{name(h.msgId)}</Table.Td>
              <Table.Td>{t(`deviceView.remote.heldState.${h.state}`)}</Table.Td>
              <Table.Td>{h.result === null ? '' : resultText(h.result as ResultCode)}</Table.Td>
              <Table.Td>{formatDateTime(h.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/**
 * Remote tab: live view (when the caller may watch), screenshot, and the device actions of the spec,
 * destructive ones after a confirmation. Each action shows only to a user holding its permission key.
 */
export function RemoteTab({ sn, online, linux, live }: { sn: string; online: boolean; linux: boolean; live: ReactNode }) {
  const { t } = useTranslation();
  const can = useCan();
  const [pending, setPending] = useState<Pending>();
  const [shot, setShot] = useState<string>();
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [ota, setOta] = useState<OtaListReply>();
  const [apps, setApps] = useState<readonly AppInfo[]>();
  const [hold, setHold] = useState(false);
  const cmd = (msgId: number, data?: unknown) => guardedCommand({ sn, online, linux, msgId, data, holdSeconds: hold ? HOLD_SECONDS : undefined });
  const confirm = (titleKey: string, message: string, msgId: number, data?: unknown) =>
    setPending({ title: t(titleKey), message, run: async () => void (await cmd(msgId, data)) });

  useEffect(
    () => () => {
      if (shot) URL.revokeObjectURL(shot);
    },
    [shot],
  );

  const screenshot = async () => {
    const url = await captureScreenshot(sn, online);
    if (url) setShot(url);
  };

  // OTA packages need the system info key and apps the app key: ask only for what the user may see.
  const mayOta = can('device_system_info');
  const mayApps = can('device_app');
  const loadLists = async () => {
    if (!online) return toastReply({ msgId: Command.OtaList, result: Result.DeviceOffline });
    try {
      const [o, a] = await Promise.all([mayOta ? askDevice(Command.OtaList, sn) : undefined, mayApps ? askDevice(Command.AppList, sn) : undefined]);
      if (o?.result === Result.Success) setOta(o.data);
      else if (o) toastReply(o);
      if (a?.result === Result.Success) setApps(a.data.apps);
    } catch (err) {
      toastError(err);
    }
  };
  const mayMessage = can('device_message');
  const maySsh = can('device_ssh');
  const groupBy = useGroupControlMark(sn);

  return (
    <Stack>
      {groupBy !== undefined && (
        <Badge color="violet" variant="filled" size="lg" tt="none" data-testid="device-group-control">
          {t('wall.underGroupBy', { account: groupBy })}
        </Badge>
      )}
      {live}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Card withBorder>
          <Title order={5} mb="sm">
            {t('deviceView.remote.actions')}
          </Title>
          <Switch mb="sm" label={t('deviceView.remote.hold')} checked={hold} onChange={(e) => setHold(e.currentTarget.checked)} data-testid="hold-switch" />
          <Group gap="xs">
            {can('device_reboot') && (
              <Button size="xs" onClick={() => confirm('deviceView.remote.reboot', t('deviceView.remote.rebootConfirm', { sn }), Command.Reboot)} data-testid="remote-reboot">
                {t('deviceView.remote.reboot')}
              </Button>
            )}
            {can('device_reset') && (
              <Button size="xs" color="red" onClick={() => confirm('deviceView.remote.reset', t('deviceView.remote.resetConfirm', { sn }), Command.FactoryReset)} data-testid="remote-reset">
                {t('deviceView.remote.reset')}
              </Button>
            )}
            {/* Linux refuses clear data and cache (refusedOnSystem): not offered there. */}
            {can('device_clear') && !linux && (
              <>
                <Button size="xs" variant="light" onClick={() => confirm('deviceView.remote.clearData', t('deviceView.remote.clearDataConfirm', { sn }), Command.ClearData)} data-testid="remote-clear-data">
                  {t('deviceView.remote.clearData')}
                </Button>
                <Button size="xs" variant="light" onClick={() => confirm('deviceView.remote.clearCache', t('deviceView.remote.clearCacheConfirm', { sn }), Command.ClearCache)} data-testid="remote-clear-cache">
                  {t('deviceView.remote.clearCache')}
                </Button>
              </>
            )}
            {can('device_capture') && (
              <Button size="xs" variant="light" onClick={() => void screenshot()} data-testid="screenshot-button">
                {t('deviceView.remote.screenshot')}
              </Button>
            )}
            {(mayOta || mayApps) && (
              <Button size="xs" variant="default" onClick={() => void loadLists()}>
                {[mayOta && t('deviceView.remote.ota'), mayApps && t('deviceView.remote.apps')].filter(Boolean).join(' / ')}
              </Button>
            )}
          </Group>
          <Stack gap="xs" mt="md">
            {mayMessage && (
              <>
                <Text fw={500}>{t('deviceView.remote.message')}</Text>
                <TextInput label={t('deviceView.remote.messageTitle')} value={title} maxLength={64} onChange={(e) => setTitle(e.currentTarget.value)} />
                <Textarea label={t('deviceView.remote.messageText')} value={text} maxLength={2000} onChange={(e) => setText(e.currentTarget.value)} />
                <Group>
                  <Button size="xs" disabled={!text.trim()} onClick={() => void cmd(Command.PushText, { title, text })}>
                    {t('deviceView.remote.send')}
                  </Button>
                </Group>
              </>
            )}
            {maySsh && (
              <>
                <Text fw={500} mt="sm">
                  {t('deviceView.remote.ssh')}
                </Text>
                <SshConfigForm sn={sn} apply={(config) => void cmd(Command.ChangeSshConfig, config)} />
              </>
            )}
          </Stack>
        </Card>
        <Card withBorder>
          {shot ? <Image src={shot} alt={t('deviceView.remote.screenshotAlt', { sn })} data-testid="screenshot-image" maw={360} /> : <Text c="dimmed">{t('deviceView.remote.screenshot')}</Text>}
        </Card>
      </SimpleGrid>
      <HeldCommands sn={sn} online={online} />
      {ota && (
        <Card withBorder>
          <Title order={5} mb="sm">
            {t('deviceView.remote.ota')} ({ota.current})
          </Title>
          <Table>
            <Table.Tbody>
              {ota.packages.map((p) => (
                <Table.Tr key={p.name}>
                  <Table.Td>{p.name}</Table.Td>
                  <Table.Td>{p.version}</Table.Td>
                  <Table.Td>{p.type}</Table.Td>
                  <Table.Td>{p.state}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {ota.packages.length === 0 && <Text c="dimmed">{t('deviceView.remote.empty')}</Text>}
        </Card>
      )}
      {apps && (
        <Card withBorder>
          <Title order={5} mb="sm">
            {t('deviceView.remote.apps')}
          </Title>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('deviceView.remote.packageName')}</Table.Th>
                <Table.Th>{t('deviceView.remote.version')}</Table.Th>
                <Table.Th>{t('deviceView.remote.type')}</Table.Th>
                <Table.Th>{t('deviceView.remote.running')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {apps.map((a) => (
                <Table.Tr key={a.packageName}>
                  <Table.Td>
                    {a.name} <Text span c="dimmed" size="xs">{a.packageName}</Text>
                  </Table.Td>
                  <Table.Td>{a.versionName}</Table.Td>
                  <Table.Td>{a.type}</Table.Td>
                  <Table.Td>{a.running ? '✓' : ''}</Table.Td>
                  <Table.Td>
                    {/* Keep-alive and uninstall are refused by Linux (refusedOnSystem): not offered there. */}
                    {!linux && (
                    <Group gap={4}>
                      <Button size="compact-xs" variant="light" onClick={() => void cmd(Command.Daemon, { packageName: a.packageName, enabled: true })}>
                        {t('deviceView.remote.daemon')}
                      </Button>
                      <Button
                        size="compact-xs"
                        color="red"
                        variant="light"
                        onClick={() =>
                          setPending({
                            title: t('deviceView.remote.uninstall'),
                            message: t('deviceView.remote.uninstallConfirm', { sn, name: a.name }),
                            run: async () => {
                              if (await cmd(Command.Uninstall, { packageName: a.packageName })) void loadLists();
                            },
                          })
                        }
                      >
                        {t('deviceView.remote.uninstall')}
                      </Button>
                    </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {apps.length === 0 && <Text c="dimmed">{t('deviceView.remote.empty')}</Text>}
        </Card>
      )}
      <ConfirmDialog
        opened={pending !== undefined}
        title={pending?.title ?? ''}
        message={pending?.message ?? ''}
        danger
        onConfirm={() => {
          const p = pending;
          setPending(undefined);
          void p?.run();
        }}
        onCancel={() => setPending(undefined)}
        confirmTestId="confirm-remote"
      />
    </Stack>
  );
}
