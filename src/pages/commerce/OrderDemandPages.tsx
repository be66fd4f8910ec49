import { ActionIcon, Badge, Box, Button, Group, Modal, NumberInput, Paper, Select, SimpleGrid, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearch } from 'wouter';
import { demandKindLabels, formFieldTypeLabels, orderDemandStateLabels } from '../../../protocol/index.ts';
import { type Demand, demandApi, type DemandField } from '../../api/commerce.ts';
import type { Page } from '../../api/devices.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from '../../format/date.ts';
import { label, options } from '../sim/card-labels.ts';
import { checkIdentity, IDENTITY_RULES } from '../../../protocol/index.ts';
import { identityMessageKey } from './identity-messages.ts';

interface Draft {
  id?: number;
  name: string;
  customer: string;
  kind: string;
  model: string;
  template: string;
  quantity: string;
  specialNeeds: string;
  fittings: { sku: string; number: string }[];
  fields: { label: string; type: DemandField['type']; value: string; options: string; rule: DemandField['rule'] }[];
}
const emptyDraft: Draft = { name: '', customer: '', kind: 'trial', model: '', template: '', quantity: '1', specialNeeds: '', fittings: [], fields: [] };
// Read only in blur and save handlers: a national ID's birth date may not lie after today.
const today = () => Date.now();
const split = (text: string) => text.split(/[,，\s]+/).map((s) => s.trim()).filter(Boolean);

function draftOf(d: Demand): Draft {
  return {
    id: d.id,
    name: d.name,
    customer: d.customer,
    kind: d.kind,
    model: d.model,
    template: d.template,
    quantity: String(d.quantity),
    specialNeeds: d.specialNeeds,
    fittings: d.fittings.map((f) => ({ sku: f.sku, number: String(f.number) })),
    fields: d.fields.map((f) => ({ label: f.label, type: f.type, value: Array.isArray(f.value) ? f.value.join(', ') : String(f.value), options: (f.options ?? []).join(', '), rule: f.rule })),
  };
}

/** Order demands: list, add, edit, submit, delete, add same, add more, finish, and staff review. */
export function OrderDemandPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const [filter, setFilter] = useState<{ number: string; customer: string; state: string | null }>({ number: '', customer: '', state: null });
  const [applied, setApplied] = useState(filter);
  const [page, setPage] = useState<Page<Demand>>();
  const [draft, setDraft] = useState<Draft>();
  const [errors, setErrors] = useState<Partial<Record<'name' | 'customer' | 'model' | 'quantity', string>>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<number, string | undefined>>({});
  const [remove, setRemove] = useState<Demand>();
  const [more, setMore] = useState<{ demand: Demand; quantity: number }>();
  const [reject, setReject] = useState<{ demand: Demand; reason: string }>();
  const [detail, setDetail] = useState<Demand>();

  const load = useCallback(() => {
    demandApi
      .list({ pageNum, pageSize, ...(applied.number.trim() ? { number: applied.number.trim() } : {}), ...(applied.customer.trim() ? { customer: applied.customer.trim() } : {}), ...(applied.state ? { state: applied.state } : {}) })
      .then(setPage, () => undefined);
  }, [pageNum, pageSize, applied]);
  useEffect(load, [load]);
  const done = () => {
    notifications.show({ color: 'green', message: t('cards.done'), autoClose: TOAST_MS });
    load();
  };

  const save = (submit: boolean) => {
    if (!draft) return;
    const e: typeof errors = {};
    for (const k of ['name', 'customer', 'model'] as const) if (!draft[k].trim()) e[k] = t('cards.commerce.required');
    if (!/^[1-9][0-9]{0,7}$/.test(draft.quantity.trim())) e.quantity = t('cards.commerce.positiveInteger');
    setErrors(e);
    const fe = Object.fromEntries(draft.fields.map((f, i) => [i, fieldError(f)]));
    setFieldErrors(fe);
    if (Object.keys(e).length || Object.values(fe).some(Boolean)) return;
    const form = {
      ...(draft.id ? { id: draft.id } : {}),
      name: draft.name,
      customer: draft.customer,
      kind: draft.kind,
      model: draft.model,
      template: draft.template,
      quantity: Number(draft.quantity),
      specialNeeds: draft.specialNeeds,
      fittings: draft.fittings.map((f) => ({ sku: f.sku, number: Number(f.number) })),
      fields: draft.fields.map((f) => ({
        label: f.label,
        type: f.type,
        value: f.type === 'checkbox' ? split(f.value) : f.value,
        ...(f.type === 'select' || f.type === 'checkbox' ? { options: split(f.options) } : {}),
        ...(f.type === 'text' && f.rule ? { rule: f.rule } : {}),
      })),
      submit,
    };
    void (draft.id ? demandApi.update(form) : demandApi.add(form)).then(() => (setDraft(undefined), done()), () => undefined);
  };
  const set = (patch: Partial<Draft>) => setDraft((d) => d && { ...d, ...patch });
  // The same rules the server applies (checked on blur and before saving); empty values are not checked.
  const fieldError = (f: Draft['fields'][number]) => {
    const problem = f.type === 'text' && f.rule && f.value.trim() ? checkIdentity(f.rule, f.value.trim(), today()) : undefined;
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
        <Button onClick={() => (setPageNum(1), setApplied(filter))}>{t('cards.search')}</Button>
        <Button onClick={() => (setErrors({}), setFieldErrors({}), setDraft(emptyDraft))} data-testid="demand-add">
          {t('cards.demand.add')}
        </Button>
      </Group>
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('cards.demand.number')}</Table.Th>
            <Table.Th>{t('cards.demand.name')}</Table.Th>
            <Table.Th>{t('cards.demand.customer')}</Table.Th>
            <Table.Th>{t('cards.demand.kind')}</Table.Th>
            <Table.Th>{t('cards.demand.model')}</Table.Th>
            <Table.Th>{t('cards.demand.quantity')}</Table.Th>
            <Table.Th>{t('cards.demand.state')}</Table.Th>
            <Table.Th>{t('cards.time')}</Table.Th>
            <Table.Th>{t('cards.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((d) => (
            <Table.Tr key={d.id} data-demand={d.number}>
              <Table.Td>{d.number}</Table.Td>
              <Table.Td>{d.name}</Table.Td>
              <Table.Td>{d.customer}</Table.Td>
              <Table.Td>{label(demandKindLabels, d.kind)}</Table.Td>
              <Table.Td>{d.model}</Table.Td>
              <Table.Td>
                {d.quantity}
                {d.parentNumber && ` (+${d.additionalQuantity} → ${d.parentNumber})`}
              </Table.Td>
              <Table.Td>
                <Badge variant="light" title={d.rejectReason} data-testid="demand-state">
                  {label(orderDemandStateLabels, d.state)}
                </Badge>
              </Table.Td>
              <Table.Td>{formatDateTime(d.createdAt)}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button size="compact-xs" variant="subtle" onClick={() => setDetail(d)}>
                    {t('cards.demand.detail')}
                  </Button>
                  {(d.state === 0 || d.state === 2) && (
                    <>
                      <Button size="compact-xs" variant="subtle" onClick={() => (setErrors({}), setFieldErrors({}), setDraft(draftOf(d)))}>
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
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter shown={page?.list.length} total={page?.total} emptyText={t('cards.demand.empty')} {...paging.footer} />

      <Modal opened={draft !== undefined} onClose={() => setDraft(undefined)} title={t(draft?.id ? 'cards.demand.edit' : 'cards.demand.add')} size="xl" centered>
        {draft && (
          <Stack>
            <SimpleGrid cols={2}>
              <TextInput label={t('cards.demand.name')} name="demandName" value={draft.name} error={errors.name} onChange={(e) => set({ name: e.currentTarget.value })} />
              <TextInput label={t('cards.demand.customer')} name="customer" value={draft.customer} error={errors.customer} onChange={(e) => set({ customer: e.currentTarget.value })} />
              <Select label={t('cards.demand.kind')} data={options(demandKindLabels)} value={draft.kind} onChange={(v) => set({ kind: v ?? 'trial' })} allowDeselect={false} />
              <TextInput label={t('cards.demand.model')} name="model" value={draft.model} error={errors.model} onChange={(e) => set({ model: e.currentTarget.value })} />
              <TextInput label={t('cards.demand.template')} value={draft.template} onChange={(e) => set({ template: e.currentTarget.value })} />
              <TextInput label={t('cards.demand.quantity')} name="quantity" value={draft.quantity} error={errors.quantity} onChange={(e) => set({ quantity: e.currentTarget.value })} />
            </SimpleGrid>
            <Textarea label={t('cards.demand.specialNeeds')} value={draft.specialNeeds} onChange={(e) => set({ specialNeeds: e.currentTarget.value })} />
            <Text fw={600}>{t('cards.demand.fittings')}</Text>
            {draft.fittings.map((f, i) => (
              <Group key={i}>
                <TextInput placeholder={t('cards.demand.sku')} value={f.sku} onChange={(e) => set({ fittings: draft.fittings.map((x, j) => (j === i ? { ...x, sku: e.currentTarget.value } : x)) })} />
                <TextInput w={100} placeholder={t('cards.demand.fittingNumber')} value={f.number} onChange={(e) => set({ fittings: draft.fittings.map((x, j) => (j === i ? { ...x, number: e.currentTarget.value } : x)) })} />
                <ActionIcon variant="subtle" color="red" aria-label={t('cards.demand.remove')} onClick={() => set({ fittings: draft.fittings.filter((_, j) => j !== i) })}>
                  ×
                </ActionIcon>
              </Group>
            ))}
            <Button variant="default" size="xs" onClick={() => set({ fittings: [...draft.fittings, { sku: '', number: '1' }] })}>
              {t('cards.demand.addFitting')}
            </Button>
            <Text fw={600}>{t('cards.demand.fields')}</Text>
            {draft.fields.map((f, i) => {
              const change = (patch: Partial<Draft['fields'][number]>) => set({ fields: draft.fields.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
              return (
                <Group key={i} align="flex-end">
                  <TextInput w={140} label={t('cards.demand.fieldLabel')} value={f.label} onChange={(e) => change({ label: e.currentTarget.value })} />
                  <Select w={130} label={t('cards.demand.fieldType')} data={options(formFieldTypeLabels)} value={f.type} onChange={(v) => change({ type: (v ?? 'text') as DemandField['type'] })} allowDeselect={false} />
                  {(f.type === 'select' || f.type === 'checkbox') && <TextInput w={170} label={t('cards.demand.fieldOptions')} value={f.options} onChange={(e) => change({ options: e.currentTarget.value })} />}
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
                  <TextInput
                    w={200}
                    label={t('cards.demand.fieldValue')}
                    name={`fieldValue-${i}`}
                    placeholder={f.type === 'date' ? 'yyyy-MM-dd' : f.type === 'upload' ? 'https://' : ''}
                    value={f.value}
                    error={fieldErrors[i]}
                    onBlur={() => setFieldErrors((fe) => ({ ...fe, [i]: fieldError(f) }))}
                    onChange={(e) => change({ value: e.currentTarget.value })}
                  />
                  <ActionIcon variant="subtle" color="red" aria-label={t('cards.demand.remove')} onClick={() => (setFieldErrors({}), set({ fields: draft.fields.filter((_, j) => j !== i) }))}>
                    ×
                  </ActionIcon>
                </Group>
              );
            })}
            <Button variant="default" size="xs" onClick={() => set({ fields: [...draft.fields, { label: '', type: 'text', value: '', options: '', rule: undefined }] })}>
              {t('cards.demand.addField')}
            </Button>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => save(false)} data-testid="demand-save">
                {t('cards.demand.save')}
              </Button>
              <Button onClick={() => save(true)} data-testid="demand-submit">
                {t('cards.demand.submit')}
              </Button>
            </Group>
          </Stack>
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
      {demand.fields.map((f) => row(f.label, Array.isArray(f.value) ? f.value.join(', ') : String(f.value)))}
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
