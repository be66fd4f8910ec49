import { Alert, Button, Code, Group, Progress, ScrollArea, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { lastValueFrom, tap } from 'rxjs';
import { Command, Result } from '../../../../protocol/index.ts';
import { saveBytes } from '../../../api/device-ops.ts';
import { clickAllowed, deviceFile, replyMessage, toastError } from '../../../devices/commands.ts';
import { formatBytes } from '../format.ts';

interface GrabbedLog {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** Device logs tab: grab the tail of the device's log, view it, download it. */
export function LogsTab({ sn, online }: { sn: string; online: boolean }) {
  const { t } = useTranslation();
  const [log, setLog] = useState<GrabbedLog>();
  const [progress, setProgress] = useState<number>();
  const [error, setError] = useState<string>();
  const grab = async () => {
    if (!online) return setError(t('deviceView.offline'));
    if (!clickAllowed(`log:${sn}`)) return;
    setProgress(0);
    try {
      const done = await lastValueFrom(deviceFile(sn, Command.GrabLog, { maxBytes: 256 * 1024 }).pipe(tap((e) => e.kind === 'progress' && setProgress(e.total ? (e.bytes / e.total) * 100 : 0))));
      if (done.kind === 'done' && done.reply.result === Result.Success && done.file) {
        setLog({ name: done.file.name, bytes: done.file.bytes });
        setError(undefined);
      } else if (done.kind === 'done') setError(replyMessage(done.reply));
    } catch (err) {
      toastError(err);
    }
    setProgress(undefined);
  };
  return (
    <>
      <Group mb="sm">
        <Button size="xs" onClick={() => void grab()} loading={progress !== undefined} data-testid="grab-log">
          {t('deviceView.logs.grab')}
        </Button>
        <Button size="xs" variant="light" disabled={!log} onClick={() => log && saveBytes(log.name, 'text/plain', log.bytes)}>
          {t('deviceView.logs.download')}
        </Button>
        {log && <Text size="sm">{t('deviceView.logs.size', { size: formatBytes(log.bytes.length) })}</Text>}
      </Group>
      {progress !== undefined && <Progress value={progress} mb="sm" />}
      {error && <Alert color="red" mb="sm">{error}</Alert>}
      {log ? (
        <ScrollArea h={480}>
          <Code block data-testid="log-text">
            {new TextDecoder().decode(log.bytes)}
          </Code>
        </ScrollArea>
      ) : (
        <Text c="dimmed">{t('deviceView.logs.empty')}</Text>
      )}
    </>
  );
}
