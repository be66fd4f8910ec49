import { Badge, Button, Checkbox, Group, Modal, Table, Text, Title, Typography } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Page } from '../../api/devices.ts';
import { type Notice, noticeApi } from '../../api/notices.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';
import { formatDateTime } from '../../format/date.ts';
import { refreshUnread } from '../../state/notices.ts';
import { NoticeFiles } from '../notice-admin/NoticeFiles.tsx';

const PAGE_SIZE = 10;

/** System notices of the current user: list, detail dialog, read, read all, delete, delete all. */
export function UserNoticePage() {
  const { t } = useTranslation();
  const [pageNum, setPageNum] = useState(1);
  const [page, setPage] = useState<Page<Notice>>();
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [open, setOpen] = useState<Notice>();
  const [confirmDeleteAll, setConfirmDeleteAll] = useState(false);
  const [confirmDeleteSelected, setConfirmDeleteSelected] = useState(false);

  const load = useCallback(() => {
    noticeApi.page(pageNum, PAGE_SIZE).then(setPage, () => undefined);
    void refreshUnread();
  }, [pageNum]);
  useEffect(load, [load]);

  const after = (p: Promise<unknown>) =>
    p.then(
      () => {
        setSelected(new Set());
        load();
      },
      () => undefined,
    );

  const openNotice = async (n: Notice) => {
    const detail = await noticeApi.detail(n.id).catch(() => undefined);
    if (!detail) return;
    setOpen(detail);
    if (!detail.isRead) void after(noticeApi.read([detail.noticeId]));
  };

  const toggle = (noticeId: number) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(noticeId)) next.add(noticeId);
      return next;
    });

  return (
    <>
      <Title order={3} mb="md">
        {t('route.userNotice')}
      </Title>
      <Group mb="md">
        <Button variant="light" onClick={() => void after(noticeApi.readAll())} data-testid="notice-read-all">
          {t('notice.readAll')}
        </Button>
        <Button variant="light" color="red" disabled={selected.size === 0} onClick={() => setConfirmDeleteSelected(true)} data-testid="notice-delete-selected">
          {t('notice.deleteSelected')}
        </Button>
        <Button variant="subtle" color="red" disabled={!page?.total} onClick={() => setConfirmDeleteAll(true)}>
          {t('notice.deleteAll')}
        </Button>
      </Group>
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40} />
            <Table.Th>{t('notice.title')}</Table.Th>
            <Table.Th>{t('notice.sender')}</Table.Th>
            <Table.Th>{t('notice.sendTime')}</Table.Th>
            <Table.Th>{t('notice.state')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((n) => (
            <Table.Tr key={n.id} data-notice={n.noticeId} style={{ cursor: 'pointer' }} onClick={() => void openNotice(n)}>
              <Table.Td onClick={(e) => e.stopPropagation()}>
                <Checkbox checked={selected.has(n.noticeId)} onChange={() => toggle(n.noticeId)} aria-label={n.title} />
              </Table.Td>
              <Table.Td fw={n.isRead ? 400 : 700}>{n.title}</Table.Td>
              <Table.Td>{[n.sendUserDeptName, n.sendUserName].filter(Boolean).join(' / ')}</Table.Td>
              <Table.Td>{formatDateTime(n.sendTime)}</Table.Td>
              <Table.Td>
                <Badge color={n.isRead ? 'gray' : 'red'} variant="light">
                  {t(n.isRead ? 'notice.read' : 'notice.unread')}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter shown={page?.list.length} total={page?.total} emptyText={t('notice.empty')} pageNum={pageNum} pageSize={PAGE_SIZE} onPage={setPageNum} />
      <Modal opened={open !== undefined} onClose={() => setOpen(undefined)} title={open?.title} size="lg" centered>
        <Text size="xs" c="dimmed" mb="sm">
          {open && `${[open.sendUserDeptName, open.sendUserName].filter(Boolean).join(' / ')} · ${formatDateTime(open.sendTime)}`}
        </Text>
        {/* Content is HTML sanitised by the server when the notice was published. */}
        <Typography>
          <div data-testid="notice-content" dangerouslySetInnerHTML={{ __html: open?.content ?? '' }} />
        </Typography>
        <NoticeFiles files={open?.files} />
      </Modal>
      <ConfirmDialog
        opened={confirmDeleteSelected}
        title={t('notice.deleteSelected')}
        message={t('notice.deleteSelectedConfirm', { count: selected.size })}
        onConfirm={() => (setConfirmDeleteSelected(false), void after(noticeApi.remove([...selected])))}
        onCancel={() => setConfirmDeleteSelected(false)}
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
