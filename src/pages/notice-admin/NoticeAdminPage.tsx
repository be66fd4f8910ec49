import { Anchor, Badge, Button, CloseButton, FileButton, Group, Modal, MultiSelect, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_ATTACHMENT_BYTES, type NoticeAttachment, noticeAuthoringApi, type SentNotice } from '../../api/notices.ts';
import { orgApi } from '../../api/orgs.ts';
import { TOAST_MS } from '../../api/request.ts';
import { RichTextField } from '../../components/RichTextField.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../format/date.ts';
import { saveBlob } from './save-blob.ts';

const MAX_FILES = 10;
// The organisation picker lists one page; larger trees are filtered by name on the server.
const ORG_PAGE = 100;

interface Draft {
  title: string;
  content: string;
  audience: 'all' | 'chosen';
  orgIds: string[];
  /** A datetime-local value ('' sends now). */
  sendAt: string;
  files: NoticeAttachment[];
}
const emptyDraft: Draft = { title: '', content: '', audience: 'all', orgIds: [], sendAt: '', files: [] };

/** Notice authoring: published and scheduled notices, publish with audience, send time and attachments, withdraw. */
export function NoticeAdminPage() {
  const { t } = useTranslation();
  const [reload, setReload] = useState(0);
  const [draft, setDraft] = useState<Draft>();
  const [errors, setErrors] = useState<Partial<Record<'title' | 'orgIds' | 'sendAt', string>>>({});
  const [orgs, setOrgs] = useState<{ value: string; label: string }[]>([]);
  const [orgQuery, setOrgQuery] = useState('');
  const [uploading, setUploading] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [withdrawing, setWithdrawing] = useState<SentNotice>();

  const load = useCallback(() => setReload((n) => n + 1), []);
  const loadPage = useCallback((q: ListQuery) => noticeAuthoringApi.sent(q.pageNum, q.pageSize), []);
  const download = useCallback((file: NoticeAttachment) => noticeAuthoringApi.download(file.url).then((blob) => saveBlob(blob, file.name), () => undefined), []);
  const columns = useMemo<DataColumn<SentNotice>[]>(
    () => [
      { key: 'title', title: t('authoring.notice.title'), fixed: true, render: (n) => n.title },
      { key: 'audience', title: t('authoring.notice.audience'), render: (n) => (n.toAll ? t('authoring.notice.audienceAll') : t('authoring.notice.audienceCount', { count: n.orgIds.length })) },
      { key: 'sendTime', title: t('authoring.notice.sendTime'), render: (n) => formatDateTime(n.sendTime), style: { whiteSpace: 'nowrap' } },
      {
        key: 'state',
        title: t('authoring.notice.state'),
        render: (n) => (
          <Badge color={n.state === 0 ? 'orange' : 'green'} variant="light" style={{ minWidth: 'max-content' }}>
            {t(n.state === 0 ? 'authoring.notice.scheduled' : 'authoring.notice.delivered')}
          </Badge>
        ),
      },
      { key: 'read', title: t('authoring.notice.readCount'), render: (n) => `${n.readCount} / ${n.recipients}` },
      {
        key: 'files',
        title: t('authoring.notice.files'),
        render: (n) => (
          <Stack gap={2}>
            {n.files.map((f) => (
              <Anchor key={f.id} size="sm" component="button" onClick={() => void download(f)}>
                {f.name}
              </Anchor>
            ))}
          </Stack>
        ),
      },
    ],
    [t, download],
  );

  useEffect(() => {
    if (!draft) return;
    const name = orgQuery.trim();
    orgApi.list(1, ORG_PAGE, name || undefined).then(
      (p) => setOrgs((known) => mergeOptions(known, p.list.map((o) => ({ value: String(o.id), label: o.name })))),
      () => undefined,
    );
  }, [draft !== undefined, orgQuery]); // eslint-disable-line react-hooks/exhaustive-deps

  const change = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => (d ? { ...d, [key]: value } : d));
    // A field's error goes as soon as it is filled, not only at the next submit.
    if (key in errors) setErrors(({ [key as keyof typeof errors]: _gone, ...rest }) => rest);
  };

  const attach = async (picked: File[]) => {
    for (const file of picked) {
      if (file.size > MAX_ATTACHMENT_BYTES) {
        notifications.show({ color: 'red', message: t('authoring.notice.tooLarge', { name: file.name }), autoClose: TOAST_MS });
        continue;
      }
      setUploading(file.name);
      try {
        const uploaded = await noticeAuthoringApi.upload(file);
        setDraft((d) => (d ? { ...d, files: [...d.files, uploaded].slice(0, MAX_FILES) } : d));
      } catch {
        // The upload call has shown the server's message.
      }
    }
    setUploading(undefined);
  };

  const submit = async () => {
    if (!draft) return;
    const found: typeof errors = {};
    if (!draft.title.trim()) found.title = t('authoring.notice.required');
    if (draft.audience === 'chosen' && draft.orgIds.length === 0) found.orgIds = t('authoring.notice.orgsRequired');
    const sendTime = draft.sendAt ? new Date(draft.sendAt).getTime() : undefined;
    if (sendTime !== undefined && sendTime <= Date.now()) found.sendAt = t('authoring.notice.sendTimePast');
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const result = await noticeAuthoringApi.publish({
        title: draft.title.trim(),
        content: draft.content,
        ...(draft.audience === 'chosen' ? { orgIds: draft.orgIds.map(Number) } : {}),
        ...(sendTime !== undefined ? { sendTime } : {}),
        attachmentIds: draft.files.map((f) => f.id),
      });
      notifications.show({
        color: 'green',
        message: result.state === 0 ? t('authoring.notice.scheduledFor', { time: formatDateTime(sendTime) }) : t('authoring.notice.published', { count: result.recipients }),
        autoClose: TOAST_MS,
      });
      setDraft(undefined);
      load();
    } catch {
      // The client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };


  return (
    <>
      <Group justify="space-between" mb="md">
        <Title order={3}>{t('authoring.notice.sent')}</Title>
        <Button onClick={() => (setErrors({}), setDraft(emptyDraft))} data-testid="notice-publish-open">
          {t('authoring.notice.publish')}
        </Button>
      </Group>
      <DataTable<SentNotice, number>
        id="sent-notices"
        columns={columns}
        rowKey={(n) => n.id}
        load={loadPage}
        reload={reload}
        emptyText={t('authoring.notice.empty')}
        rowProps={(n) => ({ 'data-sent-notice': String(n.id) })}
        actions={(n) => (
          <Button size="xs" variant="subtle" color="red" onClick={() => setWithdrawing(n)}>
            {t('authoring.notice.withdraw')}
          </Button>
        )}
      />

      <Modal opened={draft !== undefined} onClose={() => setDraft(undefined)} title={t('authoring.notice.publish')} size="lg" centered>
        {draft && (
          <Stack>
            <TextInput label={t('authoring.notice.title')} value={draft.title} maxLength={128} error={errors.title} onChange={(e) => change('title', e.currentTarget.value)} data-testid="notice-title" withAsterisk />
            <RichTextField
              label={t('authoring.notice.content')}
              description={t('authoring.notice.contentHint')}
              value={draft.content}
              onChange={(html) => change('content', html)}
              testId="notice-content-input"
            />
            <div>
              <Text size="sm" fw={500} mb={4}>
                {t('authoring.notice.audience')}
              </Text>
              <SegmentedControl
                value={draft.audience}
                onChange={(v) => change('audience', v === 'chosen' ? 'chosen' : 'all')}
                data={[
                  { value: 'all', label: t('authoring.notice.toAll') },
                  { value: 'chosen', label: t('authoring.notice.toChosen') },
                ]}
                data-testid="notice-audience"
              />
            </div>
            {draft.audience === 'chosen' && (
              <MultiSelect
                label={t('authoring.notice.orgs')}
                data={orgs}
                value={draft.orgIds}
                onChange={(v) => change('orgIds', v)}
                searchable
                searchValue={orgQuery}
                onSearchChange={setOrgQuery}
                error={errors.orgIds}
                data-testid="notice-orgs"
              />
            )}
            <TextInput
              type="datetime-local"
              label={t('authoring.notice.sendTime')}
              description={t('authoring.notice.sendTimeHint')}
              value={draft.sendAt}
              error={errors.sendAt}
              onChange={(e) => change('sendAt', e.currentTarget.value)}
              data-testid="notice-send-time"
            />
            <div>
              <Group justify="space-between" mb={4}>
                <Text size="sm" fw={500}>
                  {t('authoring.notice.attachments')}
                </Text>
                <FileButton onChange={(files) => void attach(files)} multiple>
                  {(props) => (
                    <Button {...props} size="xs" variant="light" disabled={uploading !== undefined || draft.files.length >= MAX_FILES} data-testid="notice-attach">
                      {t('authoring.notice.attach')}
                    </Button>
                  )}
                </FileButton>
              </Group>
              <Text size="xs" c="dimmed">
                {uploading ? t('authoring.notice.uploading', { name: uploading }) : t('authoring.notice.attachHint')}
              </Text>
              {draft.files.map((f) => (
                <Group key={f.id} gap="xs" data-attachment={f.name}>
                  <Text size="sm">{f.name}</Text>
                  <Text size="xs" c="dimmed">
                    {formatBytes(f.size)}
                  </Text>
                  <CloseButton
                    size="sm"
                    aria-label={t('authoring.notice.remove')}
                    onClick={() => change('files', draft.files.filter((x) => x.id !== f.id))}
                  />
                </Group>
              ))}
            </div>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setDraft(undefined)}>
                {t('authoring.notice.cancel')}
              </Button>
              <Button onClick={() => void submit()} loading={busy} disabled={uploading !== undefined} data-testid="notice-send">
                {t('authoring.notice.send')}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>

      <ConfirmDialog
        opened={withdrawing !== undefined}
        title={t('authoring.notice.withdraw')}
        message={t('authoring.notice.withdrawConfirm', { title: withdrawing?.title ?? '' })}
        onConfirm={() => {
          const target = withdrawing;
          setWithdrawing(undefined);
          if (target) noticeAuthoringApi.withdraw(target.id).then(load, () => undefined);
        }}
        onCancel={() => setWithdrawing(undefined)}
        danger
      />
    </>
  );
}

function mergeOptions(known: { value: string; label: string }[], more: { value: string; label: string }[]) {
  const byValue = new Map(known.map((o) => [o.value, o]));
  for (const o of more) byValue.set(o.value, o);
  return [...byValue.values()];
}

/** Bytes in 1024 units with 3 significant digits (platform-core section 9). */
function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toPrecision(3)} ${units[unit]}`;
}
