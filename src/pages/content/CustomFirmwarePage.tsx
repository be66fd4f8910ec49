import { Badge, Button, FileInput, Group, Modal, NumberInput, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { customFirmwareOrderStateLabels, labelOf } from '../../../protocol/index.ts';
import { type CustomOrder, customOrderApi, ORDER_ACTIONS_FROM, type OrderAction, uploadFile } from '../../api/content.ts';
import type { Page } from '../../api/devices.ts';
import { ListFooter } from '../../components/ListFooter.tsx';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { useCan } from '../../state/permissions.ts';

/** Custom firmware orders (/firmware-customize/index): apply with an attachment, view, and the allowed steps. */
export function CustomFirmwarePage() {
  const { t } = useTranslation();
  const can = useCan();
  const [pageNum, setPageNum] = useState(1);
  const [page, setPage] = useState<Page<CustomOrder>>();
  const [applying, setApplying] = useState(false);
  const [form, setForm] = useState({ title: '', description: '', attachmentDescription: '' });
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState('');
  const [stepping, setStepping] = useState<{ order: CustomOrder; action: OrderAction }>();
  const [amount, setAmount] = useState<number | string>('');
  const [text, setText] = useState('');
  const load = useCallback(() => {
    customOrderApi.list(pageNum, 10).then(setPage, () => undefined);
  }, [pageNum]);
  useEffect(load, [load]);

  const apply = async () => {
    if (!form.title.trim()) return setError(t('content.required'));
    try {
      const attachmentUploadId = file ? await uploadFile(file, 'attachment', () => undefined).done : undefined;
      await customOrderApi.apply({ ...form, ...(attachmentUploadId ? { attachmentUploadId } : {}) });
      setApplying(false);
      load();
    } catch (err) {
      setError(err instanceof Error ? err.message : t('content.uploadFailed'));
    }
  };
  const step = async () => {
    if (!stepping) return;
    const { order, action } = stepping;
    const extra = action === 'quote' ? { amount: Number(amount), assessment: text } : action === 'refuse' ? { refuseReason: text } : {};
    await customOrderApi.step(order.id, action, extra).catch(() => undefined);
    setStepping(undefined);
    load();
  };
  return (
    <>
      <Title order={3} mb="md">
        {t('route.firmwareCustomize')}
      </Title>
      {can('custom-made-img_apply') && (
        <Button mb="md" onClick={() => (setApplying(true), setError(''))}>
          {t('content.order.apply')}
        </Button>
      )}
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('content.order.orderNo')}</Table.Th>
            <Table.Th>{t('content.order.title')}</Table.Th>
            <Table.Th>{t('content.order.time')}</Table.Th>
            <Table.Th>{t('content.state')}</Table.Th>
            <Table.Th>{t('content.order.amount')}</Table.Th>
            <Table.Th>{t('content.order.assessment')}</Table.Th>
            <Table.Th>{t('content.order.refuseReason')}</Table.Th>
            <Table.Th>{t('content.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((o) => (
            <Table.Tr key={o.id}>
              <Table.Td>{o.orderNo}</Table.Td>
              <Table.Td>{o.title}</Table.Td>
              <Table.Td>{formatDateTime(o.time)}</Table.Td>
              <Table.Td>
                <Badge variant="light">{labelOf(customFirmwareOrderStateLabels, o.state as 0)?.[currentLanguage]}</Badge>
              </Table.Td>
              <Table.Td>{o.amount || ''}</Table.Td>
              <Table.Td>{o.assessment}</Table.Td>
              <Table.Td>{o.refuseReason}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {(ORDER_ACTIONS_FROM[o.state] ?? []).map((action) => (
                    <Button key={action} size="compact-xs" variant="light" onClick={() => (setStepping({ order: o, action }), setText(''), setAmount(''))}>
                      {t(`content.order.actions.${action}`)}
                    </Button>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter shown={page?.list.length} total={page?.total} emptyText={t('content.empty')} pageNum={pageNum} pageSize={10} onPage={setPageNum} />
      <Modal opened={applying} onClose={() => setApplying(false)} title={t('content.order.apply')} centered>
        <Stack>
          <TextInput label={t('content.order.title')} required value={form.title} onChange={(e) => setForm({ ...form, title: e.currentTarget.value })} />
          <Textarea label={t('content.order.description')} value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} />
          <FileInput label={t('content.order.attachment')} value={file} onChange={setFile} clearable />
          <TextInput label={t('content.order.attachmentDescription')} value={form.attachmentDescription} onChange={(e) => setForm({ ...form, attachmentDescription: e.currentTarget.value })} />
          {error && <Text c="red">{error}</Text>}
          <Group justify="flex-end">
            <Button onClick={() => void apply()}>{t('content.save')}</Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={stepping !== undefined} onClose={() => setStepping(undefined)} title={stepping ? t(`content.order.actions.${stepping.action}`) : ''} centered>
        <Stack>
          {stepping?.action === 'quote' && <NumberInput label={t('content.order.amount')} min={0} decimalScale={2} value={amount} onChange={setAmount} />}
          {(stepping?.action === 'quote' || stepping?.action === 'refuse') && (
            <Textarea label={t(stepping.action === 'quote' ? 'content.order.assessment' : 'content.order.refuseReason')} value={text} onChange={(e) => setText(e.currentTarget.value)} />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setStepping(undefined)}>
              {t('content.cancel')}
            </Button>
            <Button onClick={() => void step()}>{t('content.save')}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
