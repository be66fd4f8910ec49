import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { notifications } from '../../../layout/toast.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Result, type ResultCode } from '../../../../protocol/index.ts';
import { TOAST_MS } from '../../../api/request.ts';
import { i18next } from '../../../i18n/index.ts';
import { watchDevice } from '../../../devices/channel.ts';
import { resultText } from '../../../devices/commands.ts';
import { keepNewest, outcomesIn, type WatchedOutcome } from './watched-outcomes.ts';

/**
 * Commands other operators (or the platform: campaigns, held commands) send to the device this page shows,
 * as they end: the page watches the device over the console socket (196611) while it is open, again after
 * every reconnect, and hears each outcome (196612). The operator's own commands are not repeated here.
 */
export function DeviceActivity({ sn }: { sn: string }) {
  const { t } = useTranslation();
  const [list, setList] = useState<readonly WatchedOutcome[]>([]);

  useEffect(() => {
    return watchDevice(sn, (batch) => {
      const arrived = outcomesIn(batch, sn);
      if (arrived.length === 0) return;
      setList((old) => keepNewest(old, arrived));
      for (const o of arrived) {
        notifications.show({
          color: o.result === Result.Success ? 'blue' : 'orange',
          message: t('deviceView.activity.toast', { by: o.by, command: commandText(o), sn, result: resultText(o.result as ResultCode) }),
          autoClose: TOAST_MS,
        });
      }
    });
  }, [sn, t]);

  if (list.length === 0) return null;
  return (
    <Paper withBorder p="xs" data-testid="device-activity">
      <Text size="sm" fw={600} mb={4}>
        {t('deviceView.activity.title')}
      </Text>
      <Stack gap={2}>
        {list.map((o) => (
          <Group key={`${o.time}-${o.msgId}-${o.by}`} gap="xs" wrap="nowrap">
            <Text size="xs" c="dimmed">
              {new Date(o.time).toLocaleTimeString()}
            </Text>
            <Text size="xs">{t('deviceView.activity.line', { by: o.by, command: commandText(o) })}</Text>
            <Badge size="xs" color={o.result === Result.Success ? 'green' : 'red'}>
              {resultText(o.result as ResultCode)}
            </Badge>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

function commandText(o: WatchedOutcome): string {
  return i18next.t(`deviceView.activity.command.${o.command}`, { defaultValue: o.command });
}
