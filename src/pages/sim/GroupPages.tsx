import { Alert, Anchor, Badge, Button, Group, Modal, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { addressSourceLabels, addressTypeLabels, groupAddressStateLabels, importTypeLabels } from '../../../protocol/index.ts';
import { type AddressList, cardsApi, type DirectionAddress, type DirectionGroup } from '../../api/cards.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type RuleAnswer, rules, useConsoleForm } from '../../components/use-console-form.ts';
import { MAX_LONG_TEXT, MAX_TEXT } from '../../../protocol/api/common.ts';
import { MAX_ADDRESS } from '../../../protocol/api/cards.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage } from '../../components/local-page.ts';
import { formatDateTime } from '../../format/date.ts';
import { AddressMessage, checkAddress } from '../../../protocol/index.ts';
import { label, options } from './card-labels.ts';
import { FormActions } from '../../components/FormActions.tsx';

const saved = (message: string) => notifications.show({ color: 'green', message, autoClose: TOAST_MS });

/** Directional groups: list with address and card counts; add, edit, delete; open a group's addresses. */
export function GroupManagementPage() {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [query, setQuery] = useState('');
  const [reload, setReload] = useState(0);
  /** The group being edited (id) or added. */
  const [edit, setEdit] = useState<{ id?: number }>();
  const { form, field, onSubmit, submitting } = useConsoleForm<{ name: string; remark: string }>({
    initialValues: { name: '', remark: '' },
    rules: { name: [rules.required(), rules.maxLength(MAX_TEXT), rules.noEmoji()], remark: [rules.maxLength(MAX_LONG_TEXT), rules.noEmoji()] },
  });
  const open = (group?: DirectionGroup) => {
    form.setValues({ name: group?.name ?? '', remark: group?.remark ?? '' });
    form.clearErrors();
    setEdit(group ? { id: group.id } : {});
  };
  const [remove, setRemove] = useState<DirectionGroup>();

  const load = useCallback((q: ListQuery) => cardsApi.groups(q.pageNum, q.pageSize, query || undefined), [query]);
  const refresh = () => setReload((n) => n + 1);
  const columns: DataColumn<DirectionGroup>[] = [
    { key: 'name', title: t('cards.groups.name'), fixed: true, render: (g) => g.name },
    { key: 'remark', title: t('cards.groups.remark'), render: (g) => g.remark },
    { key: 'custom', title: t('cards.groups.custom'), render: (g) => `${g.customCount} / 10` },
    { key: 'presets', title: t('cards.groups.presets'), render: (g) => g.presetCount },
    { key: 'cards', title: t('cards.groups.cards'), render: (g) => g.cardCount },
    { key: 'createdAt', title: t('cards.time'), style: { whiteSpace: 'nowrap' }, render: (g) => formatDateTime(g.createdAt) },
  ];

  const save = async (values: { name: string; remark: string }) => {
    if (!edit) return;
    const [name, remark] = [values.name.trim(), values.remark.trim()];
    await (edit.id ? cardsApi.updateGroup(edit.id, name, remark) : cardsApi.addGroup(name, remark));
    setEdit(undefined);
    saved(t('cards.groups.saved'));
    refresh();
  };

  return (
    <Stack>
      <Title order={3}>{t('route.groupManagement')}</Title>
      <Group>
        <TextInput placeholder={t('cards.groups.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Button onClick={() => setQuery(name.trim())}>{t('cards.search')}</Button>
        <Button onClick={() => open()} data-testid="group-add">
          {t('cards.groups.add')}
        </Button>
      </Group>
      <DataTable<DirectionGroup, number>
        id="direction-groups"
        columns={columns}
        rowKey={(g) => g.id}
        rowProps={(g) => ({ 'data-group': g.name })}
        load={load}
        filterKey={query}
        reload={reload}
        emptyText={t('cards.groups.empty')}
        actions={(g) => (
          <>
            <Button size="compact-xs" variant="light" component={Link} href={`/custom-service/group-config?groupId=${g.id}`}>
              {t('cards.groups.config')}
            </Button>
            <Button size="compact-xs" variant="subtle" onClick={() => open(g)}>
              {t('cards.groups.edit')}
            </Button>
            <Button size="compact-xs" variant="subtle" color="red" onClick={() => setRemove(g)}>
              {t('cards.groups.delete')}
            </Button>
          </>
        )}
      />
      <Modal opened={edit !== undefined} onClose={() => setEdit(undefined)} title={t(edit?.id ? 'cards.groups.edit' : 'cards.groups.add')} centered>
        <form onSubmit={onSubmit(save)} noValidate>
          <Stack>
            <TextInput label={t('cards.groups.name')} required {...field('name')} name="groupName" />
            <TextInput label={t('cards.groups.remark')} {...field('remark')} />
            <FormActions submitting={submitting} onCancel={() => setEdit(undefined)} submitTestId="group-save" />
          </Stack>
        </form>
      </Modal>
      <ConfirmDialog
        opened={remove !== undefined}
        title={t('cards.groups.delete')}
        message={t('cards.groups.confirmDelete', { name: remove?.name ?? '' })}
        onConfirm={() => {
          const g = remove;
          setRemove(undefined);
          if (g) void cardsApi.deleteGroup(g.id).then(() => (saved(t('cards.done')), refresh()), () => undefined);
        }}
        onCancel={() => setRemove(undefined)}
        danger
      />
    </Stack>
  );
}

interface AddressDraft {
  addressType: 'ip' | 'domain';
  address: string;
  description: string;
  importType: 'NEW' | 'TRANSFER';
}
/** The address form's values: every field a string, as the one form pattern holds them. */
type AddressValues = { addressType: string; address: string; description: string; importType: string };
const emptyAddress: AddressValues = { addressType: 'ip', address: '', description: '', importType: 'NEW' };
const draftOf = (v: AddressValues): AddressDraft => ({
  addressType: v.addressType === 'domain' ? 'domain' : 'ip',
  address: v.address,
  description: v.description,
  importType: v.importType === 'TRANSFER' ? 'TRANSFER' : 'NEW',
});

/** An address rule failure as the form reports it: the spec's message for the chosen type. */
function ruleAnswer(type: 'ip' | 'domain', text: string): RuleAnswer {
  if (!text.trim()) return { key: 'cards.rule.required' };
  const wrong = checkAddress(type, text.trim().toLowerCase());
  if (wrong === AddressMessage.Ip) return { key: 'cards.rule.ip' };
  if (wrong === AddressMessage.Domain) return { key: 'cards.rule.domain' };
  return undefined;
}

/** A group's target addresses: custom ones (at most 10) and presets, each with its carrier state. */
export function GroupConfigPage() {
  const { t } = useTranslation();
  const groupId = Number(new URLSearchParams(useSearch()).get('groupId') ?? '0');
  const [data, setData] = useState<AddressList>();
  const [adding, setAdding] = useState(false);
  const { form, field, onSubmit, submitting } = useConsoleForm<AddressValues>({
    initialValues: emptyAddress,
    rules: {
      address: [(v, values) => ruleAnswer(values['addressType'] === 'domain' ? 'domain' : 'ip', v), rules.maxLength(MAX_ADDRESS)],
      description: [rules.maxLength(MAX_TEXT), rules.noEmoji()],
    },
  });
  const [remove, setRemove] = useState<DirectionAddress>();
  const [reload, setReload] = useState(0);

  // A group's addresses come whole (at most 10 custom and the presets); the table pages them here.
  const load = useCallback(
    async (q: ListQuery) => {
      if (groupId <= 0) return { total: 0, list: [] };
      const answer = await cardsApi.addresses(groupId);
      setData(answer);
      return localPage(answer.list, q);
    },
    [groupId],
  );
  const refresh = useCallback(() => setReload((n) => n + 1), []);
  const addressColumns: DataColumn<DirectionAddress>[] = [
    { key: 'address', title: t('cards.address.address'), fixed: true, render: (a) => a.address },
    { key: 'type', title: t('cards.address.type'), render: (a) => label(addressTypeLabels, a.addressType) },
    { key: 'description', title: t('cards.address.description'), render: (a) => a.description },
    { key: 'source', title: t('cards.address.source'), render: (a) => label(addressSourceLabels, a.source) },
    { key: 'importType', title: t('cards.address.importType'), render: (a) => label(importTypeLabels, a.importType) },
    {
      key: 'state',
      title: t('cards.address.state'),
      render: (a) => (
        <Badge variant="light" color={a.state === 500 ? 'green' : a.state === 100 || a.state === 200 ? 'blue' : 'red'} data-testid="address-state">
          {label(groupAddressStateLabels, a.state)}
        </Badge>
      ),
    },
  ];

  // Pending addresses settle about 10 s after they were sent: look again when the next one is due.
  useEffect(() => {
    const due = data?.list.filter((a) => a.state === 100 || a.state === 200).map((a) => a.effectiveAt);
    if (!due?.length) return;
    const timer = setTimeout(refresh, Math.max(1000, Math.min(...due) - Date.now() + 500));
    return () => clearTimeout(timer);
  }, [data, refresh]);

  // The form's address and a preset's: the server's message shows as a toast when it refuses one.
  const add = async (d: AddressDraft) => {
    await cardsApi
      .addAddress({ groupId, addressType: d.addressType, address: d.address.trim(), description: d.description.trim(), importType: d.importType })
      .then(() => (setAdding(false), saved(t('cards.address.note')), refresh()), () => undefined);
  };

  const custom = data?.list.filter((a) => a.source === 'user_defined').length ?? 0;
  const inGroup = new Set(data?.list.map((a) => a.address));

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>{t('cards.address.title', { name: data?.group.name ?? '' })}</Title>
        <Anchor component={Link} href="/custom-service/group-management">
          {t('cards.address.back')}
        </Anchor>
      </Group>
      <Alert color="blue">{t('cards.address.note')}</Alert>
      <Group>
        <Button onClick={() => (form.setValues(emptyAddress), form.clearErrors(), setAdding(true))} disabled={custom >= (data?.maxCustom ?? 10)} data-testid="address-add">
          {t('cards.address.add')}
        </Button>
        <Text size="sm" c="dimmed">
          {t('cards.address.limit', { count: custom, max: data?.maxCustom ?? 10 })}
        </Text>
        {data?.presets
          .filter((p) => !inGroup.has(p.address))
          .map((p) => (
            <Button
              key={p.address}
              size="xs"
              variant="default"
              onClick={() => void add({ addressType: 'domain', address: p.address, description: p.description, importType: 'NEW' })}
            >
              {t('cards.address.addPreset')}: {p.description}
            </Button>
          ))}
      </Group>
      <DataTable<DirectionAddress, number>
        id="direction-addresses"
        columns={addressColumns}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ 'data-address': a.address })}
        load={load}
        filterKey={String(groupId)}
        reload={reload}
        emptyText={t('cards.address.empty')}
        actions={(a) =>
          (a.state === 500 || a.state === 300 || a.state === 400) && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={() => setRemove(a)}>
              {t('cards.address.delete')}
            </Button>
          )
        }
      />
      <Modal opened={adding} onClose={() => setAdding(false)} title={t('cards.address.add')} centered>
        <form onSubmit={onSubmit((values) => add(draftOf(values)))} noValidate>
          <Stack>
            <Select
              label={t('cards.address.type')}
              data={options(addressTypeLabels)}
              {...field('addressType')}
              onChange={(v) => form.setFieldValue('addressType', v === 'domain' ? 'domain' : 'ip')}
              allowDeselect={false}
              data-testid="address-type"
            />
            <TextInput label={t('cards.address.address')} required {...field('address')} />
            <TextInput label={t('cards.address.description')} {...field('description')} />
            <Select
              label={t('cards.address.importType')}
              data={options(importTypeLabels)}
              {...field('importType')}
              onChange={(v) => form.setFieldValue('importType', v === 'TRANSFER' ? 'TRANSFER' : 'NEW')}
              allowDeselect={false}
            />
            <FormActions submitting={submitting} onCancel={() => setAdding(false)} submitTestId="address-save" />
          </Stack>
        </form>
      </Modal>
      <ConfirmDialog
        opened={remove !== undefined}
        title={t('cards.address.delete')}
        message={t('cards.address.confirmDelete', { address: remove?.address ?? '' })}
        onConfirm={() => {
          const a = remove;
          setRemove(undefined);
          if (a) void cardsApi.deleteAddress(a.id).then(refresh, () => undefined);
        }}
        onCancel={() => setRemove(undefined)}
        danger
      />
    </Stack>
  );
}
