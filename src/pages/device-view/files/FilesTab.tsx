import { Alert, Anchor, Breadcrumbs, Button, Checkbox, FileButton, Group, Progress, Table, Text } from '@mantine/core';
import { notifications } from '../../../layout/toast.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { lastValueFrom, tap } from 'rxjs';
import { Command, type DeviceFileEvent, type FileEntry, MAX_DELETE, Result } from '../../../../protocol/index.ts';
import { saveBytes } from '../../../api/device-ops.ts';
import { askDevice, clickAllowed, deviceFile, replyMessage, toastError, toastReply, uploadFile } from '../../../devices/commands.ts';
import { TOAST_MS } from '../../../api/request.ts';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';
import { formatDateTime } from '../../../format/date.ts';
import { useCan } from '../../../state/permissions.ts';
import { useRealtimeOpen } from '../../../devices/hooks.ts';
import { formatBytes } from '../format.ts';

interface Transfer {
  readonly label: string;
  readonly bytes: number;
  readonly total: number;
  /** The console's socket dropped: the transfer continues from `bytes` once it is back (XFER-4). */
  readonly resuming?: boolean;
}

/** The progress bar's state after one transfer event (the outcome is handled by the caller). */
function nextTransfer(label: string, e: DeviceFileEvent): Transfer | undefined {
  if (e.kind === 'done') return undefined;
  return { label, bytes: e.bytes, total: e.total, resuming: e.kind === 'resuming' };
}

/**
 * File transfer tab: browse the device's file root, upload and download with progress, delete at most
 * 100. Export and delete show only under their own keys (devices-and-commerce section 6).
 */
export function FilesTab({ sn, online }: { sn: string; online: boolean }) {
  const { t } = useTranslation();
  const can = useCan();
  const [dir, setDir] = useState('');
  const [entries, setEntries] = useState<readonly FileEntry[]>([]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string>();
  const [transfer, setTransfer] = useState<Transfer>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const join = (name: string) => (dir ? `${dir}/${name}` : name);

  const [nonce, setNonce] = useState(0);
  const load = () => setNonce((n) => n + 1);

  const connected = useRealtimeOpen();
  useEffect(() => {
    if (!connected) return;
    let cancelled = false;
    askDevice(Command.FileList, sn, { path: dir }).then(
      (reply) => {
        if (cancelled) return;
        if (reply.result === Result.Success) {
          setEntries(reply.data.entries);
          setError(undefined);
        } else setError(replyMessage(reply));
        setSelected(new Set());
      },
      (err: unknown) => !cancelled && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      cancelled = true;
    };
  }, [sn, dir, online, nonce, connected]);

  const upload = async (file: File | null) => {
    if (!file) return;
    if (!online) return toastReply({ msgId: Command.FileUpload, result: Result.DeviceOffline });
    const bytes = new Uint8Array(await file.arrayBuffer());
    const label = t('deviceView.files.uploading', { name: file.name });
    setTransfer({ label, bytes: 0, total: bytes.length });
    try {
      const done = await lastValueFrom(uploadFile(sn, dir, file.name, bytes).pipe(tap((e) => e.kind !== 'done' && setTransfer(nextTransfer(label, e)))));
      if (done.kind === 'done' && done.reply.result === Result.Success) {
        const sha = done.reply.data.sha256;
        notifications.show({ color: 'green', message: t('deviceView.files.uploaded', { name: file.name, sha }), autoClose: TOAST_MS });
      } else if (done.kind === 'done') toastReply(done.reply);
    } catch (err) {
      toastError(err);
    }
    setTransfer(undefined);
    load();
  };

  const download = async () => {
    const chosen = entries.filter((e) => selected.has(e.name));
    if (chosen.length === 0) return notifications.show({ color: 'orange', message: t('deviceView.files.selectAtLeastOne'), autoClose: TOAST_MS });
    if (chosen.length > 1) return notifications.show({ color: 'orange', message: t('deviceView.files.singleFile'), autoClose: TOAST_MS });
    const entry = chosen[0] as FileEntry;
    if (entry.type === 'folder') return notifications.show({ color: 'orange', message: t('deviceView.files.folderNotDownloadable'), autoClose: TOAST_MS });
    if (!clickAllowed(`download:${sn}`)) return;
    const label = t('deviceView.files.downloading', { name: entry.name });
    setTransfer({ label, bytes: 0, total: entry.size });
    try {
      const done = await lastValueFrom(deviceFile(sn, Command.FileDownload, { path: join(entry.name) }).pipe(tap((e) => e.kind !== 'done' && setTransfer(nextTransfer(label, e)))));
      if (done.kind === 'done' && done.file) {
        saveBytes(done.file.name, done.file.mime, done.file.bytes);
        notifications.show({ color: 'green', message: t('deviceView.files.downloaded', { name: done.file.name, sha: done.file.sha256 }), autoClose: TOAST_MS });
      } else if (done.kind === 'done') toastReply(done.reply);
    } catch (err) {
      toastError(err);
    }
    setTransfer(undefined);
  };

  const remove = async () => {
    setConfirmDelete(false);
    // The spec's rule: at most 100 per delete, the first 100 are deleted.
    const paths = [...selected].slice(0, MAX_DELETE).map(join);
    try {
      toastReply(await askDevice(Command.FileDelete, sn, { paths }));
    } catch (err) {
      toastError(err);
    }
    load();
  };

  const segments = dir ? dir.split('/') : [];
  const toggle = (name: string) => setSelected((s) => (s.has(name) ? new Set([...s].filter((n) => n !== name)) : new Set([...s, name])));

  return (
    <>
      <Group mb="sm" justify="space-between">
        <Breadcrumbs>
          <Anchor onClick={() => setDir('')}>{t('deviceView.files.root')}</Anchor>
          {segments.map((seg, i) => (
            <Anchor key={i} onClick={() => setDir(segments.slice(0, i + 1).join('/'))}>
              {seg}
            </Anchor>
          ))}
        </Breadcrumbs>
        <Group gap="xs">
          <Button size="xs" variant="default" disabled={!dir} onClick={() => setDir(segments.slice(0, -1).join('/'))}>
            {t('deviceView.files.up')}
          </Button>
          <Button size="xs" variant="default" onClick={() => void load()}>
            {t('deviceView.refresh')}
          </Button>
          <FileButton onChange={(f) => void upload(f)} disabled={transfer !== undefined}>
            {(props) => (
              <Button size="xs" {...props} data-testid="file-upload">
                {t('deviceView.files.upload')}
              </Button>
            )}
          </FileButton>
          {can('device_file_export') && (
            <Button size="xs" variant="light" onClick={() => void download()} disabled={transfer !== undefined} data-testid="file-download">
              {t('deviceView.files.download')}
            </Button>
          )}
          {can('device_file_delete') && (
            <Button size="xs" color="red" variant="light" onClick={() => (selected.size ? setConfirmDelete(true) : notifications.show({ color: 'orange', message: t('deviceView.files.selectAtLeastOne'), autoClose: TOAST_MS }))} data-testid="file-delete">
              {t('deviceView.files.delete')}
            </Button>
          )}
        </Group>
      </Group>
      {transfer && (
        <div data-testid="transfer-progress">
          <Text size="sm">{transfer.label}</Text>
          {transfer.resuming && (
            <Text size="sm" c="orange" data-testid="transfer-resuming">
              {t('deviceView.files.resuming', { percent: transfer.total ? Math.floor((transfer.bytes / transfer.total) * 100) : 0 })}
            </Text>
          )}
          <Progress value={transfer.total ? (transfer.bytes / transfer.total) * 100 : 100} color={transfer.resuming ? 'orange' : undefined} striped={transfer.resuming} animated={transfer.resuming} mb="sm" />
        </div>
      )}
      {error && <Alert color="red" mb="sm">{error}</Alert>}
      <Table striped highlightOnHover data-testid="file-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40} />
            <Table.Th>{t('deviceView.files.name')}</Table.Th>
            <Table.Th>{t('deviceView.files.type')}</Table.Th>
            <Table.Th>{t('deviceView.files.size')}</Table.Th>
            <Table.Th>{t('deviceView.files.mtime')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map((e) => (
            <Table.Tr key={e.name} data-name={e.name}>
              <Table.Td>
                <Checkbox aria-label={e.name} checked={selected.has(e.name)} onChange={() => toggle(e.name)} />
              </Table.Td>
              <Table.Td>{e.type === 'folder' ? <Anchor onClick={() => setDir(join(e.name))}>{e.name}/</Anchor> : e.name}</Table.Td>
              <Table.Td>{e.type === 'folder' ? t('deviceView.files.folder') : t('deviceView.files.file')}</Table.Td>
              <Table.Td>{e.type === 'file' ? formatBytes(e.size) : ''}</Table.Td>
              <Table.Td>{e.mtime ? formatDateTime(e.mtime) : ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {entries.length === 0 && !error && (
        <Text c="dimmed" ta="center" py="md">
          {t('deviceView.files.empty')}
        </Text>
      )}
      <ConfirmDialog
        opened={confirmDelete}
        title={t('deviceView.files.delete')}
        message={t('deviceView.files.deleteConfirm', { count: Math.min(selected.size, MAX_DELETE) })}
        onConfirm={() => void remove()}
        onCancel={() => setConfirmDelete(false)}
        confirmTestId="confirm-delete"
      />
    </>
  );
}
