import { ActionIcon, Anchor, Badge, Box, Button, Checkbox, FileInput, Group, Modal, NumberInput, Paper, Select, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearch } from 'wouter';
import { demandKindLabels, formFieldTypeLabels, orderDemandStateLabels } from '../../../protocol/index.ts';
import { type Demand, demandApi, type DemandField } from '../../api/commerce.ts';
import { contentApi, uploadFile } from '../../api/content.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../format/date.ts';
import { label, options } from '../sim/card-labels.ts';
import { FormActions } from '../../components/FormActions.tsx';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { MAX_TEXT } from '../../../protocol/api/common.ts';
import { MAX_SHORT_TEXT, MAX_SPECIAL_NEEDS } from '../../../protocol/api/commerce.ts';
import { checkIdentity, IDENTITY_RULES } from '../../../protocol/index.ts';
import { identityMessageKey } from './identity-messages.ts';

/** The demand's own fields, in the console form. */
interface DemandValues extends Record<string, string> {
  name: string;
  customer: string;
  kind: string;
  model: string;
  template: string;
  quantity: string;
  specialNeeds: string;
}
/** The lists beside the form: fittings and the custom form fields, each row checked on its own. */
interface Draft {
  id?: number;
  fittings: { sku: string; number: string }[];
  fields: { label: string; type: DemandField['type']; value: string; options: string; rule: DemandField['rule'] }[];
}
const emptyValues: DemandValues = { name: '', customer: '', kind: 'trial', model: '', template: '', quantity: '1', specialNeeds: '' };
const emptyDraft: Draft = { fittings: [], fields: [] };
const text = [rules.maxLength(MAX_TEXT), rules.noEmoji()];
const quantityRule = rules.key((v) => (/^[1-9][0-9]{0,7}$/.test(v.trim()) ? undefined : 'cards.commerce.positiveInteger'));
const DEMAND_RULES = {
  name: [rules.required(), ...text],
  customer: [rules.required(), ...text],
  model: [rules.required(), ...text],
  template: text,
  quantity: [rules.required(), quantityRule],
  specialNeeds: [rules.maxLength(MAX_SPECIAL_NEEDS), rules.noEmoji()],
};
/** A fitting row's problem: a SKU is needed and its count is a positive integer (the server says 'demand.fitting'). */
const fittingError = (f: Draft['fittings'][number]): string | undefined => (!f.sku.trim() ? 'cards.commerce.required' : /^[1-9][0-9]{0,7}$/.test(f.number.trim()) ? undefined : 'cards.commerce.positiveInteger');
// Read only in blur and save handlers: a national ID's birth date may not lie after today.
const today = () => Date.now();
const split = (text: string) => text.split(/[,，\s]+/).map((s) => s.trim()).filter(Boolean);

type DraftField = Draft['fields'][number];

/** A real calendar date written yyyy-MM-dd (what the date input gives and the server checks). */
function realDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/**
 * An upload field's value: the chosen file goes up resumably (tus) and is kept in the file library of the
 * caller's organisation; the field holds its download link, which is what the server stores and checks.
 */
function UploadValue({ field, error, onValue, onBlur }: { field: DraftField; error: string | undefined; onValue: (v: string) => void; onBlur: () => void }) {
  const { t } = useTranslation();
  const [pct, setPct] = useState<number>();
  const [name, setName] = useState('');
  const [failed, setFailed] = useState('');
  const send = async (file: File | null) => {
    if (!file) return;
    setFailed('');
    setName(file.name);
    try {
      const uploadId = await uploadFile(file, 'file', (sent, total) => setPct(Math.floor((100 * sent) / total))).done;
      const item = await contentApi.add('file', { uploadId, parentId: null, remark: field.label });
      onValue(`${window.location.origin}/file/download/${item.id}`);
    } catch (err) {
      setFailed(err instanceof Error ? err.message : t('content.uploadFailed'));
    } finally {
      setPct(undefined);
    }
  };
  return (
    <Stack gap={4} w={260}>
      <FileInput label={t('cards.demand.fieldValue')} placeholder={t('cards.demand.chooseFile')} onChange={(f) => void send(f)} data-testid="demand-field-file" clearable={false} />
      {pct !== undefined && <Text size="xs">{t('cards.demand.fileUploading', { pct })}</Text>}
      {field.value && name && pct === undefined && (
        <Anchor size="xs" href={field.value} target="_blank">
          {t('cards.demand.fileUploaded', { name })}
        </Anchor>
      )}
      <TextInput size="xs" placeholder={t('cards.demand.orLink')} value={field.value} error={failed || error} onChange={(e) => onValue(e.currentTarget.value)} onBlur={onBlur} data-testid="demand-field-link" />
    </Stack>
  );
}

/** The value input a field's type calls for: text, textarea, select, checkbox group, date picker, file upload. */
function FieldValue({ field, index, error, onValue, onBlur }: { field: DraftField; index: number; error: string | undefined; onValue: (v: string) => void; onBlur: () => void }) {
  const { t } = useTranslation();
  const common = { label: t('cards.demand.fieldValue'), error, 'data-testid': `demand-field-value-${index}` };
  const choices = split(field.options);
  switch (field.type) {
    case 'textarea':
      return <Textarea w={260} autosize minRows={2} {...common} value={field.value} onChange={(e) => onValue(e.currentTarget.value)} onBlur={onBlur} />;
    case 'select':
      return <Select w={200} {...common} data={choices} value={field.value || null} onChange={(v) => onValue(v ?? '')} onBlur={onBlur} clearable />;
    case 'checkbox':
      return (
        <Checkbox.Group {...common} value={split(field.value)} onChange={(v) => onValue(v.join(', '))} onBlur={onBlur}>
          <Group gap="xs" mt={4}>
            {choices.map((c) => (
              <Checkbox key={c} value={c} label={c} />
            ))}
          </Group>
        </Checkbox.Group>
      );
    case 'date':
      return <TextInput w={170} type="date" {...common} value={field.value} onChange={(e) => onValue(e.currentTarget.value)} onBlur={onBlur} />;
    case 'upload':
      return <UploadValue field={field} error={error} onValue={onValue} onBlur={onBlur} />;
    default:
      return <TextInput w={200} {...common} name={`fieldValue-${index}`} value={field.value} onChange={(e) => onValue(e.currentTarget.value)} onBlur={onBlur} />;
  }
}

function valuesOf(d: Demand): DemandValues {
  return { name: d.name, customer: d.customer, kind: d.kind, model: d.model, template: d.template, quantity: String(d.quantity), specialNeeds: d.specialNeeds };
}

function draftOf(d: Demand): Draft {
  return {
    id: d.id,
    fittings: d.fittings.map((f) => ({ sku: f.sku, number: String(f.number) })),
    fields: d.fields.map((f) => ({ label: f.label, type: f.type, value: Array.isArray(f.value) ? f.value.join(', ') : String(f.value), options: (f.options ?? []).join(', '), rule: f.rule })),
  };
}

/** Order demands: list, add, edit, submit, delete, add same, add more, finish, and staff review. */
export function OrderDemandPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState<{ number: string; customer: string; state: string | null }>({ number: '', customer: '', state: null });
  const [applied, setApplied] = useState(filter);
  const [reload, setReload] = useState(0);
  const [draft, setDraft] = useState<Draft>();
  const { form, field, onSubmit, submitting } = useConsoleForm<DemandValues>({ initialValues: emptyValues, rules: DEMAND_RULES, serverKeys: { 'demand.positiveInteger': 'quantity' } });
  const [fieldErrors, setFieldErrors] = useState<Record<number, string | undefined>>({});
  const [fittingErrors, setFittingErrors] = useState<Record<number, string | undefined>>({});
  const open = (values: DemandValues, d: Draft) => {
    form.setValues(values);
    form.clearErrors();
    setFieldErrors({});
    setFittingErrors({});
    setDraft(d);
  };
  const [remove, setRemove] = useState<Demand>();
  const [more, setMore] = useState<{ demand: Demand; quantity: number }>();
  const [reject, setReject] = useState<{ demand: Demand; reason: string }>();
  const [detail, setDetail] = useState<Demand>();

  const load = useCallback(
    (q: ListQuery) =>
      demandApi.list({
        pageNum: q.pageNum,
        pageSize: q.pageSize,
        ...(applied.number.trim() ? { number: applied.number.trim() } : {}),
        ...(applied.customer.trim() ? { customer: applied.customer.trim() } : {}),
        ...(applied.state ? { state: applied.state } : {}),
      }),
    [applied],
  );
  const done = () => {
    notifications.show({ color: 'green', message: t('cards.done'), autoClose: TOAST_MS });
    setReload((n) => n + 1);
  };
  const columns: DataColumn<Demand>[] = [
    { key: 'number', title: t('cards.demand.number'), fixed: true, style: { whiteSpace: 'nowrap' }, render: (d) => d.number },
    { key: 'name', title: t('cards.demand.name'), render: (d) => d.name },
    { key: 'customer', title: t('cards.demand.customer'), render: (d) => d.customer },
    { key: 'kind', title: t('cards.demand.kind'), render: (d) => label(demandKindLabels, d.kind) },
    { key: 'model', title: t('cards.demand.model'), render: (d) => d.model },
    { key: 'quantity', title: t('cards.demand.quantity'), render: (d) => `${d.quantity}${d.parentNumber ? ` (+${d.additionalQuantity} → ${d.parentNumber})` : ''}` },
    {
      key: 'state',
      title: t('cards.demand.state'),
      render: (d) => (
        <Badge variant="light" title={d.rejectReason} data-testid="demand-state">
          {label(orderDemandStateLabels, d.state)}
        </Badge>
      ),
    },
    { key: 'createdAt', title: t('cards.time'), style: { whiteSpace: 'nowrap' }, render: (d) => formatDateTime(d.createdAt) },
  ];

  // "Save" keeps a draft (the secondary button), "Submit" sends it for review. The form's own fields are
  // checked by the form; the fittings and custom fields here, each on its row.
  const save = async (v: DemandValues, { secondary }: { readonly secondary: boolean }) => {
    if (!draft) return;
    const fe = Object.fromEntries(draft.fields.map((f, i) => [i, fieldError(f)]));
    const fi = Object.fromEntries(draft.fittings.map((f, i) => [i, fittingError(f)]));
    setFieldErrors(fe);
    setFittingErrors(fi);
    if (Object.values(fe).some(Boolean) || Object.values(fi).some(Boolean)) return;
    const body = {
      ...(draft.id ? { id: draft.id } : {}),
      name: v.name.trim(),
      customer: v.customer.trim(),
      kind: v.kind,
      model: v.model.trim(),
      template: v.template.trim(),
      quantity: Number(v.quantity.trim()),
      specialNeeds: v.specialNeeds,
      fittings: draft.fittings.map((f) => ({ sku: f.sku, number: Number(f.number) })),
      fields: draft.fields.map((f) => ({
        label: f.label,
        type: f.type,
        value: f.type === 'checkbox' ? split(f.value) : f.value,
        ...(f.type === 'select' || f.type === 'checkbox' ? { options: split(f.options) } : {}),
        ...(f.type === 'text' && f.rule ? { rule: f.rule } : {}),
      })),
      submit: !secondary,
    };
    await (draft.id ? demandApi.update(body) : demandApi.add(body));
    setDraft(undefined);
    done();
  };
  const set = (patch: Partial<Draft>) => setDraft((d) => d && { ...d, ...patch });
  // The same rules the server applies (checked on blur and before saving); empty values are not checked.
  const fieldError = (f: Draft['fields'][number]): string | undefined => {
    const v = f.value.trim();
    if ((f.type === 'select' || f.type === 'checkbox') && split(f.options).length === 0) return t('cards.demand.needOptions');
    if (!v) return undefined;
    if (f.type === 'date' && !realDate(v)) return t('cards.demand.badDate');
    if (f.type === 'upload' && !/^https?:\/\/\S+$/i.test(v)) return t('cards.demand.badLink');
    if (f.type === 'select' && !split(f.options).includes(v)) return t('cards.demand.notAnOption');
    if (f.type === 'checkbox' && split(v).some((x) => !split(f.options).includes(x))) return t('cards.demand.notAnOption');
    const problem = f.type === 'text' && f.rule ? checkIdentity(f.rule, v, today()) : undefined;
    return problem ? t(identityMessageKey(problem)) : undefined;
  };
  const ruleOptions = [{ value: '', label: t('cards.identity.none') }, ...IDENTITY_RULES.map((r) => ({ value: r, label: t(`cards.identity.${r}`) }))];
  const shareLink = (d: Demand) => `${window.location.origin}/user/order-demand-detail?number=${d.number}&token=${d.shareToken}`;

  return (
    <Stack>
      <Title order={3}>{t('route.orderDemand')}</Title>
      <Group>
        <TextInput placeholder={t('cards.demand.number')} value={filter.number} onChange={(e) => setFilter({ ...filter, number: e.currentTarget.value })} />
        <TextInput placeholder={t('cards.demand.customer')} value={filter.customer} onChange={(e) => setFilter({ ...filter, customer: e.currentTarget.value })} />
        <Select w={160} placeholder={t('cards.demand.state')} data={options(orderDemandStateLabels)} value={filter.state} onChange={(v) => setFilter({ ...filter, state: v })} clearable />
        <Button onClick={() => setApplied(filter)}>{t('cards.search')}</Button>
        <Button onClick={() => open(emptyValues, emptyDraft)} data-testid="demand-add">
          {t('cards.demand.add')}
        </Button>
      </Group>
      <DataTable<Demand, number>
        id="order-demands"
        columns={columns}
        rowKey={(d) => d.id}
        rowProps={(d) => ({ 'data-demand': d.number })}
        load={load}
        filterKey={JSON.stringify(applied)}
        reload={reload}
        emptyText={t('cards.demand.empty')}
        actions={(d) => (
          <>
            <Button size="compact-xs" variant="subtle" onClick={() => setDetail(d)}>
              {t('cards.demand.detail')}
            </Button>
            {(d.state === 0 || d.state === 2) && (
              <>
                <Button size="compact-xs" variant="subtle" onClick={() => open(valuesOf(d), draftOf(d))}>
                  {t('cards.demand.edit')}
                </Button>
                <Button size="compact-xs" variant="light" onClick={() => void demandApi.submit(d.id).then(done, () => undefined)}>
                  {t('cards.demand.submit')}
                </Button>
                <Button size="compact-xs" variant="subtle" color="red" onClick={() => setRemove(d)}>
                  {t('cards.demand.delete')}
                </Button>
              </>
            )}
            {d.state === 1 && (
              <>
                <Button size="compact-xs" variant="light" color="green" onClick={() => void demandApi.review(d.id, true).then(done, () => undefined)}>
                  {t('cards.demand.approve')}
                </Button>
                <Button size="compact-xs" variant="subtle" color="red" onClick={() => setReject({ demand: d, reason: '' })}>
                  {t('cards.demand.reject')}
                </Button>
              </>
            )}
            {d.state === 3 && (
              <Button size="compact-xs" variant="light" onClick={() => void demandApi.finish(d.id).then(done, () => undefined)}>
                {t('cards.demand.finish')}
              </Button>
            )}
            {(d.state === 3 || d.state === 4) && (
              <Button size="compact-xs" variant="subtle" onClick={() => setMore({ demand: d, quantity: 1 })}>
                {t('cards.demand.addMore')}
              </Button>
            )}
            <Button size="compact-xs" variant="subtle" onClick={() => void demandApi.addSame(d.id).then(done, () => undefined)}>
              {t('cards.demand.addSame')}
            </Button>
          </>
        )}
      />

      <Modal opened={draft !== undefined} onClose={() => setDraft(undefined)} title={t(draft?.id ? 'cards.demand.edit' : 'cards.demand.add')} size="xl" centered>
        {draft && (
          <form onSubmit={onSubmit(save)} noValidate>
          <Stack>
            <SimpleGrid cols={2}>
              <TextInput label={t('cards.demand.name')} required {...field('name')} name="demandName" />
              <TextInput label={t('cards.demand.customer')} required {...field('customer')} />
              <Select label={t('cards.demand.kind')} data={options(demandKindLabels)} value={form.values.kind} onChange={(v) => form.setFieldValue('kind', v ?? 'trial')} allowDeselect={false} />
              <TextInput label={t('cards.demand.model')} required {...field('model')} />
              <TextInput label={t('cards.demand.template')} {...field('template')} />
              <TextInput label={t('cards.demand.quantity')} required {...field('quantity')} />
            </SimpleGrid>
            <Textarea label={t('cards.demand.specialNeeds')} {...field('specialNeeds')} />
            <Text fw={600}>{t('cards.demand.fittings')}</Text>
            {draft.fittings.map((f, i) => {
              const change = (patch: Partial<Draft['fittings'][number]>) => set({ fittings: draft.fittings.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
              const error = fittingErrors[i] && t(fittingErrors[i]);
              const check = () => setFittingErrors((fe) => ({ ...fe, [i]: fittingError(f) }));
              return (
                <Group key={i} align="flex-start">
                  <TextInput placeholder={t('cards.demand.sku')} value={f.sku} error={error && !f.sku.trim() ? error : undefined} onChange={(e) => change({ sku: e.currentTarget.value })} onBlur={check} maxLength={MAX_SHORT_TEXT} />
                  <TextInput w={120} placeholder={t('cards.demand.fittingNumber')} value={f.number} error={error && f.sku.trim() ? error : undefined} onChange={(e) => change({ number: e.currentTarget.value })} onBlur={check} />
                  <ActionIcon mt={4} variant="subtle" color="red" aria-label={t('cards.demand.remove')} onClick={() => (setFittingErrors({}), set({ fittings: draft.fittings.filter((_, j) => j !== i) }))}>
                    ×
                  </ActionIcon>
                </Group>
              );
            })}
            <Button variant="default" size="xs" onClick={() => set({ fittings: [...draft.fittings, { sku: '', number: '1' }] })}>
              {t('cards.demand.addFitting')}
            </Button>
            <Text fw={600}>{t('cards.demand.fields')}</Text>
            {draft.fields.map((f, i) => {
              const change = (patch: Partial<Draft['fields'][number]>) => set({ fields: draft.fields.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
              return (
                <Group key={i} align="flex-start" data-testid={`demand-field-${i}`}>
                  <TextInput w={140} label={t('cards.demand.fieldLabel')} data-testid={`demand-field-label-${i}`} value={f.label} onChange={(e) => change({ label: e.currentTarget.value })} />
                  <Select
                    w={130}
                    label={t('cards.demand.fieldType')}
                    data={options(formFieldTypeLabels)}
                    value={f.type}
                    onChange={(v) => (change({ type: (v ?? 'text') as DemandField['type'], value: '' }), setFieldErrors((fe) => ({ ...fe, [i]: undefined })))}
                    allowDeselect={false}
                    data-testid={`demand-field-type-${i}`}
                  />
                  {(f.type === 'select' || f.type === 'checkbox') && (
                    <TextInput
                      w={170}
                      label={t('cards.demand.fieldOptions')}
                      value={f.options}
                      onChange={(e) => change({ options: e.currentTarget.value })}
                      onBlur={() => setFieldErrors((fe) => ({ ...fe, [i]: fieldError(f) }))}
                      data-testid={`demand-field-options-${i}`}
                    />
                  )}
                  {f.type === 'text' && (
                    <Select
                      w={170}
                      label={t('cards.identity.check')}
                      data-testid={`field-rule-${i}`}
                      data={ruleOptions}
                      value={f.rule ?? ''}
                      onChange={(v) => (change({ rule: (v || undefined) as DemandField['rule'] }), setFieldErrors((fe) => ({ ...fe, [i]: undefined })))}
                      allowDeselect={false}
                    />
                  )}
                  <FieldValue
                    field={f}
                    index={i}
                    error={fieldErrors[i]}
                    onBlur={() => setFieldErrors((fe) => ({ ...fe, [i]: fieldError(f) }))}
                    onValue={(value) => {
                      change({ value });
                      // A choice made by clicking is checked at once; typed text on blur.
                      if (f.type === 'select' || f.type === 'checkbox' || f.type === 'upload') setFieldErrors((fe) => ({ ...fe, [i]: fieldError({ ...f, value }) }));
                    }}
                  />
                  <ActionIcon variant="subtle" color="red" aria-label={t('cards.demand.remove')} onClick={() => (setFieldErrors({}), set({ fields: draft.fields.filter((_, j) => j !== i) }))}>
                    ×
                  </ActionIcon>
                </Group>
              );
            })}
            <Button variant="default" size="xs" onClick={() => set({ fields: [...draft.fields, { label: '', type: 'text', value: '', options: '', rule: undefined }] })} data-testid="demand-add-field">
              {t('cards.demand.addField')}
            </Button>
            <FormActions submitting={submitting} onCancel={() => setDraft(undefined)} secondary={{ label: t('cards.demand.save'), testId: 'demand-save' }} submitLabel={t('cards.demand.submit')} submitTestId="demand-submit" />
          </Stack>
          </form>
        )}
      </Modal>

      <Modal opened={detail !== undefined} onClose={() => setDetail(undefined)} title={detail?.number} size="lg" centered>
        {detail && (
          <Stack>
            <DemandView demand={detail} />
            <Button
              variant="light"
              onClick={() => void navigator.clipboard?.writeText(shareLink(detail)).then(() => notifications.show({ message: t('cards.demand.copied'), autoClose: TOAST_MS }), () => undefined)}
            >
              {t('cards.demand.share')}
            </Button>
          </Stack>
        )}
      </Modal>
      <Modal opened={more !== undefined} onClose={() => setMore(undefined)} title={t('cards.demand.addMore')} centered>
        <Stack>
          <NumberInput label={t('cards.demand.moreQuantity')} min={1} value={more?.quantity} onChange={(v) => setMore((m) => m && { ...m, quantity: Number(v) || 1 })} />
          <Button onClick={() => more && void demandApi.addMore(more.demand.id, more.quantity).then(() => (setMore(undefined), done()), () => undefined)}>{t('device.confirm')}</Button>
        </Stack>
      </Modal>
      <Modal opened={reject !== undefined} onClose={() => setReject(undefined)} title={t('cards.demand.reject')} centered>
        <Stack>
          <Textarea label={t('cards.demand.rejectReason')} value={reject?.reason ?? ''} onChange={(e) => {
            const v = e.currentTarget.value;
            setReject((r) => r && { ...r, reason: v });
          }} />
          <Button color="red" onClick={() => reject && void demandApi.review(reject.demand.id, false, reject.reason).then(() => (setReject(undefined), done()), () => undefined)}>
            {t('device.confirm')}
          </Button>
        </Stack>
      </Modal>
      <ConfirmDialog
        opened={remove !== undefined}
        title={t('cards.demand.delete')}
        message={t('cards.demand.confirmDelete', { number: remove?.number ?? '' })}
        onConfirm={() => {
          const d = remove;
          setRemove(undefined);
          if (d) void demandApi.remove(d.id).then(done, () => undefined);
        }}
        onCancel={() => setRemove(undefined)}
        danger
      />
    </Stack>
  );
}

/** The facts of one demand, shared by the detail dialog and the public page. */
function DemandView({ demand }: { demand: Omit<Demand, 'shareToken'> }) {
  const { t } = useTranslation();
  const row = (k: string, v: string) => (
    <Group gap="xs">
      <Text size="sm" c="dimmed" w={140}>
        {t(k)}
      </Text>
      <Text size="sm">{v}</Text>
    </Group>
  );
  return (
    <Stack gap={4}>
      {row('cards.demand.name', demand.name)}
      {row('cards.demand.customer', demand.customer)}
      {row('cards.demand.kind', label(demandKindLabels, demand.kind))}
      {row('cards.demand.model', demand.model)}
      {row('cards.demand.template', demand.template)}
      {row('cards.demand.quantity', String(demand.quantity))}
      {demand.parentNumber && row('cards.demand.additional', `${demand.additionalQuantity} → ${demand.parentNumber}`)}
      {row('cards.demand.state', label(orderDemandStateLabels, demand.state))}
      {row('cards.demand.specialNeeds', demand.specialNeeds)}
      {row('cards.demand.fittings', demand.fittings.map((f) => `${f.sku} × ${f.number}`).join(', '))}
      {demand.fields.map((f) =>
        f.type === 'upload' && typeof f.value === 'string' && /^https?:\/\//i.test(f.value) ? (
          <Group gap="xs" key={f.label}>
            <Text size="sm" c="dimmed" w={140}>
              {f.label}
            </Text>
            <Anchor size="sm" href={f.value} target="_blank" rel="noopener noreferrer" data-testid="demand-upload-link">
              {f.value}
            </Anchor>
          </Group>
        ) : (
          row(f.label, Array.isArray(f.value) ? f.value.join(', ') : String(f.value))
        ),
      )}
    </Stack>
  );
}

/** The public /order-demand-detail page: one demand, opened by its share link (number and token). */
export function OrderDemandDetailPage() {
  const params = new URLSearchParams(useSearch());
  const [demand, setDemand] = useState<Omit<Demand, 'shareToken'>>();
  useEffect(() => {
    demandApi.publicView(params.get('number') ?? '', params.get('token') ?? '').then(setDemand, () => undefined);
    // The link's parameters are read once, when the page opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <Box maw={720} mx="auto" mt={60}>
      <Paper withBorder p="xl">
        <Title order={3} mb="md">
          {demand?.number}
        </Title>
        {demand && <DemandView demand={demand} />}
      </Paper>
    </Box>
  );
}
