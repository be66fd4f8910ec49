import { Badge, Button, FileInput, Modal, NumberInput, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { customFirmwareOrderStateLabels, labelOf } from '../../../protocol/index.ts';
import { MAX_LONG_TEXT, MAX_TEXT } from '../../../protocol/api/common.ts';
import { MAX_ORDER_AMOUNT, MAX_ORDER_DESCRIPTION } from '../../../protocol/api/content.ts';
import { type CustomOrder, customOrderApi, ORDER_ACTIONS_FROM, type OrderAction, uploadFile } from '../../api/content.ts';
import { TOAST_MS } from '../../api/request.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { notifications } from '../../layout/toast.ts';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { useCan } from '../../state/permissions.ts';
import { FormActions } from '../../components/FormActions.tsx';

type Values = { title: string; description: string; attachmentDescription: string };

/** Custom firmware orders (/firmware-customize/index): apply with an attachment, view, and the allowed steps. */
export function CustomFirmwarePage() {
  const { t } = useTranslation();
  const can = useCan();
  const [reload, setReload] = useState(0);
  const [applying, setApplying] = useState(false);
  const { form, field, onSubmit, submitting } = useConsoleForm<Values>({
    initialValues: { title: '', description: '', attachmentDescription: '' },
    rules: {
      title: [rules.required(), rules.maxLength(MAX_TEXT), rules.noEmoji()],
      description: [rules.maxLength(MAX_ORDER_DESCRIPTION)],
      attachmentDescription: [rules.maxLength(MAX_LONG_TEXT)],
    },
  });
  const [file, setFile] = useState<File | null>(null);
  const [stepping, setStepping] = useState<{ order: CustomOrder; action: OrderAction }>();
  // A quote needs its amount; a refusal its reason (the step body's bounds: MAX_LONG_TEXT).
  const stepForm = useConsoleForm<{ amount: string; text: string }>({
    initialValues: { amount: '', text: '' },
    rules: {
      amount: [(v) => (stepping?.action === 'quote' ? rules.required()(v, {}) : undefined)],
      text: [(v) => (stepping?.action === 'refuse' ? rules.required()(v, {}) : undefined), rules.maxLength(MAX_LONG_TEXT)],
    },
  });
  const load = useCallback((q: ListQuery) => customOrderApi.list(q.pageNum, q.pageSize), []);
  const refresh = () => setReload((n) => n + 1);
  const open = () => {
    form.reset();
    setFile(null);
    setApplying(true);
  };

  const apply = async (values: Values) => {
    let attachmentUploadId: string | undefined;
    if (file) {
      try {
        attachmentUploadId = await uploadFile(file, 'attachment', () => undefined).done;
      } catch {
        notifications.show({ color: 'red', message: t('content.uploadFailed'), autoClose: TOAST_MS });
        return;
      }
    }
    await customOrderApi.apply({ ...values, title: values.title.trim(), ...(attachmentUploadId ? { attachmentUploadId } : {}) });
    setApplying(false);
    refresh();
  };
  const step = async ({ amount, text }: { amount: string; text: string }) => {
    if (!stepping) return;
    const { order, action } = stepping;
    const extra = action === 'quote' ? { amount: Number(amount), assessment: text.trim() } : action === 'refuse' ? { refuseReason: text.trim() } : {};
    await customOrderApi.step(order.id, action, extra);
    setStepping(undefined);
    refresh();
  };
  const columns: DataColumn<CustomOrder>[] = [
    { key: 'orderNo', title: t('content.order.orderNo'), fixed: true, render: (o) => o.orderNo },
    { key: 'title', title: t('content.order.title'), render: (o) => o.title },
    { key: 'time', title: t('content.order.time'), style: { whiteSpace: 'nowrap' }, render: (o) => formatDateTime(o.time) },
    { key: 'state', title: t('content.state'), render: (o) => <Badge variant="light">{labelOf(customFirmwareOrderStateLabels, o.state as 0)?.[currentLanguage]}</Badge> },
    { key: 'amount', title: t('content.order.amount'), render: (o) => o.amount || '' },
    { key: 'assessment', title: t('content.order.assessment'), render: (o) => o.assessment },
    { key: 'refuseReason', title: t('content.order.refuseReason'), render: (o) => o.refuseReason },
  ];
  return (
    <>
      <Title order={3} mb="md">
        {t('route.firmwareCustomize')}
      </Title>
      {can('custom-made-img_apply') && (
        <Button mb="md" onClick={open} data-testid="order-apply">
          {t('content.order.apply')}
        </Button>
      )}
      <DataTable<CustomOrder, number>
        id="custom-firmware-orders"
        columns={columns}
        rowKey={(o) => o.id}
        rowProps={(o) => ({ 'data-order': o.title })}
        load={load}
        reload={reload}
        emptyText={t('content.empty')}
        actions={(o) =>
          (ORDER_ACTIONS_FROM[o.state] ?? []).map((action) => (
            <Button key={action} size="compact-xs" variant="light" onClick={() => (stepForm.form.reset(), setStepping({ order: o, action }))}>
              {t(`content.order.actions.${action}`)}
            </Button>
          ))
        }
      />
      <Modal opened={applying} onClose={() => setApplying(false)} title={t('content.order.apply')} centered>
        <form onSubmit={onSubmit(apply)} noValidate>
          <Stack>
            <TextInput label={t('content.order.title')} required {...field('title')} data-testid="order-title" />
            <Textarea label={t('content.order.description')} {...field('description')} />
            <FileInput label={t('content.order.attachment')} value={file} onChange={setFile} clearable />
            <TextInput label={t('content.order.attachmentDescription')} {...field('attachmentDescription')} />
            <FormActions submitting={submitting} onCancel={() => setApplying(false)} cancelLabel={t('content.cancel')} submitLabel={t('content.save')} submitTestId="order-apply-save" />
          </Stack>
        </form>
      </Modal>
      <Modal opened={stepping !== undefined} onClose={() => setStepping(undefined)} title={stepping ? t(`content.order.actions.${stepping.action}`) : ''} centered>
        <form onSubmit={stepForm.onSubmit(step)} noValidate>
          <Stack>
            {stepping?.action === 'quote' && (
              <NumberInput
                label={t('content.order.amount')}
                required
                min={0}
                max={MAX_ORDER_AMOUNT}
                decimalScale={2}
                {...stepForm.field('amount')}
                onChange={(v) => stepForm.form.setFieldValue('amount', String(v))}
                data-testid="order-step-amount"
              />
            )}
            {(stepping?.action === 'quote' || stepping?.action === 'refuse') && (
              <Textarea
                label={t(stepping.action === 'quote' ? 'content.order.assessment' : 'content.order.refuseReason')}
                required={stepping.action === 'refuse'}
                {...stepForm.field('text')}
                data-testid="order-step-text"
              />
            )}
            <FormActions submitting={stepForm.submitting} onCancel={() => setStepping(undefined)} cancelLabel={t('content.cancel')} submitLabel={t('content.save')} submitTestId="order-step-save" />
          </Stack>
        </form>
      </Modal>
    </>
  );
}
