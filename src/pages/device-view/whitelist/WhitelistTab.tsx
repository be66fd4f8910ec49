import { Alert, Badge, Button, Group, Text, Textarea } from '@mantine/core';
import { notifications } from '../../../layout/toast.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Command, Result } from '../../../../protocol/index.ts';
import { deviceOpsApi, parsePackageList } from '../../../api/device-ops.ts';
import { askDevice, replyMessage, toastError } from '../../../devices/commands.ts';
import { TOAST_MS } from '../../../api/request.ts';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { guardedCommand } from '../remote/RemoteTab.tsx';

/** Whitelist tab: comma lists (Chinese commas and spaces count as commas); cancelling reaches the whole organisation tree. */
export function WhitelistTab({ sn, online, linux }: { sn: string; online: boolean; linux: boolean }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [current, setCurrent] = useState<readonly string[]>();
  const [confirmCancel, setConfirmCancel] = useState(false);
  // The packages a confirmed 'set' will send; setting replaces the device's whole whitelist.
  const [confirmSet, setConfirmSet] = useState<readonly string[]>();
  if (linux) return <Alert color="gray">{t('deviceView.linuxCannot')}</Alert>;

  const read = async () => {
    if (!online) return setCurrent(undefined);
    try {
      const reply = await askDevice(Command.Whitelist, sn, { action: 'get' });
      if (reply.result === Result.Success) setCurrent(reply.data.packages);
      else notifications.show({ color: 'red', message: replyMessage(reply), autoClose: TOAST_MS });
    } catch (err) {
      toastError(err);
    }
  };
  const askSet = () => {
    const packages = parsePackageList(text);
    if (packages.length === 0) return notifications.show({ color: 'orange', message: t('deviceView.whitelist.invalid'), autoClose: TOAST_MS });
    setConfirmSet(packages);
  };
  const set = async (packages: readonly string[]) => {
    setConfirmSet(undefined);
    if (await guardedCommand({ sn, online, linux, msgId: Command.Whitelist, data: { action: 'set', packages } })) void read();
  };
  const cancel = async () => {
    setConfirmCancel(false);
    try {
      const res = await deviceOpsApi.whitelistCancel(parsePackageList(text));
      notifications.show({ color: 'green', message: t('deviceView.done', { message: `${res.delivered} / ${res.devices}` }), autoClose: TOAST_MS });
      void read();
    } catch {
      // the request layer has shown the server's message
    }
  };

  return (
    <>
      <Textarea label={t('deviceView.whitelist.packages')} value={text} onChange={(e) => setText(e.currentTarget.value)} autosize minRows={3} data-testid="whitelist-input" />
      <Group mt="sm">
        <Button size="xs" onClick={askSet}>
          {t('deviceView.whitelist.set')}
        </Button>
        <Button size="xs" color="red" variant="light" onClick={() => setConfirmCancel(true)}>
          {t('deviceView.whitelist.cancel')}
        </Button>
        <Button size="xs" variant="default" onClick={() => void read()}>
          {t('deviceView.whitelist.get')}
        </Button>
      </Group>
      {current && (
        <div>
          <Text fw={500} mt="md" mb="xs">
            {t('deviceView.whitelist.current')}
          </Text>
          {current.length === 0 ? (
            <Text c="dimmed">{t('deviceView.whitelist.none')}</Text>
          ) : (
            <Group gap="xs" data-testid="whitelist-current">
              {current.map((p) => (
                <Badge key={p} variant="light">
                  {p}
                </Badge>
              ))}
            </Group>
          )}
        </div>
      )}
      <ConfirmDialog
        opened={confirmSet !== undefined}
        title={t('deviceView.whitelist.set')}
        message={t('deviceView.whitelist.setConfirm', { sn, count: confirmSet?.length ?? 0, packages: confirmSet?.join(', ') ?? '' })}
        danger
        onConfirm={() => confirmSet && void set(confirmSet)}
        onCancel={() => setConfirmSet(undefined)}
        confirmTestId="confirm-whitelist-set"
      />
      <ConfirmDialog opened={confirmCancel} title={t('deviceView.whitelist.cancel')} message={t('deviceView.whitelist.cancelConfirm')} danger onConfirm={() => void cancel()} onCancel={() => setConfirmCancel(false)} />
    </>
  );
}
