import { Anchor, Badge, Button, Modal, Text, Title, Typography } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Notice, noticeApi } from '../../api/notices.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery, type Selection } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../format/date.ts';
import { refreshUnread } from '../../state/notices.ts';
import { NoticeFiles } from '../notice-admin/NoticeFiles.tsx';

const sender = (n: Notice) => [n.sendUserDeptName, n.sendUserName].filter(Boolean).join(' / ');

/** System notices of the current user: list, detail dialog, read, read all, delete selected (or all matching), delete all. */
export function UserNoticePage() {
  const { t } = useTranslation();
  const [reload, setReload] = useState(0);
  const [total, setTotal] = useState(0);
  const [open, setOpen] = useState<Notice>();
  const [confirmDeleteAll, setConfirmDeleteAll] = useState(false);
  const [deleting, setDeleting] = useState<{ selection: Selection<number>; clear: () => void }>();

  const load = useCallback(async (q: ListQuery) => {
    const page = await noticeApi.page(q.pageNum, q.pageSize);
    setTotal(page.total);
    void refreshUnread();
    return page;
  }, []);
  const after = (p: Promise<unknown>, clear?: () => void) =>
    p.then(
      () => {
        clear?.();
        setReload((n) => n + 1);
      },
      () => undefined,
    );

  const openNotice = async (n: Notice) => {
    const detail = await noticeApi.detail(n.id).catch(() => undefined);
    if (!detail) return;
    setOpen(detail);
    if (!detail.isRead) void after(noticeApi.read([detail.noticeId]));
  };

  const columns = useMemo(
    (): DataColumn<Notice>[] => [
      {
        key: 'title',
        title: t('notice.title'),
        fixed: true,
        render: (n) => (
          <Anchor component="button" type="button" fw={n.isRead ? 400 : 700} c="inherit" onClick={() => void openNotice(n)}>
            {n.title}
          </Anchor>
        ),
      },
      { key: 'sender', title: t('notice.sender'), render: sender },
      { key: 'sendTime', title: t('notice.sendTime'), render: (n) => formatDateTime(n.sendTime) },
      {
        key: 'state',
        title: t('notice.state'),
        render: (n) => (
          <Badge color={n.isRead ? 'gray' : 'red'} variant="light">
            {t(n.isRead ? 'notice.read' : 'notice.unread')}
          </Badge>
        ),
      },
    ],
    // openNotice only reads state setters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [t],
  );

  return (
    <>
      <Title order={3} mb="md">
        {t('route.userNotice')}
      </Title>
      <DataTable<Notice, number>
        id="user-notices"
        testId="user-notice-table"
        columns={columns}
        rowKey={(n) => n.noticeId}
        rowLabel={(n) => n.title}
        rowProps={(n) => ({ 'data-notice': String(n.noticeId) })}
        load={load}
        reload={reload}
        emptyText={t('notice.empty')}
        toolbar={(selection, clear) => (
          <>
            <Button variant="light" onClick={() => void after(noticeApi.readAll())} data-testid="notice-read-all">
              {t('notice.readAll')}
            </Button>
            <Button variant="light" color="red" disabled={selection.count === 0} onClick={() => setDeleting({ selection, clear })} data-testid="notice-delete-selected">
              {t('notice.deleteSelected')}
            </Button>
            <Button variant="subtle" color="red" disabled={total === 0} onClick={() => setConfirmDeleteAll(true)}>
              {t('notice.deleteAll')}
            </Button>
          </>
        )}
      />
      <Modal opened={open !== undefined} onClose={() => setOpen(undefined)} title={open?.title} size="lg" centered>
        <Text size="xs" c="dimmed" mb="sm">
          {open && `${sender(open)} · ${formatDateTime(open.sendTime)}`}
        </Text>
        {/* Content is HTML sanitised by the server when the notice was published. */}
        <Typography>
          <div data-testid="notice-content" dangerouslySetInnerHTML={{ __html: open?.content ?? '' }} />
        </Typography>
        <NoticeFiles files={open?.files} />
      </Modal>
      <ConfirmDialog
        opened={deleting !== undefined}
        title={t('notice.deleteSelected')}
        message={t('notice.deleteSelectedConfirm', { count: deleting?.selection.count ?? 0 })}
        onConfirm={() => {
          if (!deleting) return;
          const { selection, clear } = deleting;
          setDeleting(undefined);
          // Every matching row across pages is every notice of this user: the list has no filter.
          void after(selection.allMatching ? noticeApi.removeAll() : noticeApi.remove(selection.ids), clear);
        }}
        onCancel={() => setDeleting(undefined)}
        danger
        confirmTestId="notice-delete-selected-confirm"
      />
      <ConfirmDialog
        opened={confirmDeleteAll}
        title={t('notice.deleteAll')}
        message={t('notice.deleteAllConfirm')}
        onConfirm={() => (setConfirmDeleteAll(false), void after(noticeApi.removeAll()))}
        onCancel={() => setConfirmDeleteAll(false)}
        danger
      />
    </>
  );
}
