import { Alert, Anchor, Badge, Button, Group, Modal, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { addressSourceLabels, addressTypeLabels, groupAddressStateLabels, importTypeLabels } from '../../../protocol/index.ts';
import { type AddressList, cardsApi, type DirectionAddress, type DirectionGroup } from '../../api/cards.ts';
import type { Page } from '../../api/devices.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from '../../format/date.ts';
import { AddressMessage, checkAddress } from '../../../protocol/index.ts';
import { label, options } from './card-labels.ts';

const saved = (message: string) => notifications.show({ color: 'green', message, autoClose: TOAST_MS });

/** Directional groups: list with address and card counts; add, edit, delete; open a group's addresses. */
export function GroupManagementPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const [name, setName] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState<Page<DirectionGroup>>();
  const [edit, setEdit] = useState<{ id?: number; name: string; remark: string }>();
  const [nameError, setNameError] = useState<string>();
  const [remove, setRemove] = useState<DirectionGroup>();

  const load = useCallback(() => {
    cardsApi.groups(pageNum, pageSize, query || undefined).then(setPage, () => undefined);
  }, [pageNum, pageSize, query]);
  useEffect(load, [load]);

  const save = async () => {
    if (!edit) return;
    if (!edit.name.trim()) return setNameError(t('cards.rule.required'));
    const call = edit.id ? cardsApi.updateGroup(edit.id, edit.name.trim(), edit.remark.trim()) : cardsApi.addGroup(edit.name.trim(), edit.remark.trim());
    await call.then(() => (setEdit(undefined), saved(t('cards.groups.saved')), load()), () => undefined);
  };

  return (
    <Stack>
      <Title order={3}>{t('route.groupManagement')}</Title>
      <Group>
        <TextInput placeholder={t('cards.groups.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Button onClick={() => (setPageNum(1), setQuery(name.trim()))}>{t('cards.search')}</Button>
        <Button onClick={() => (setNameError(undefined), setEdit({ name: '', remark: '' }))} data-testid="group-add">
          {t('cards.groups.add')}
        </Button>
      </Group>
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('cards.groups.name')}</Table.Th>
            <Table.Th>{t('cards.groups.remark')}</Table.Th>
            <Table.Th>{t('cards.groups.custom')}</Table.Th>
            <Table.Th>{t('cards.groups.presets')}</Table.Th>
            <Table.Th>{t('cards.groups.cards')}</Table.Th>
            <Table.Th>{t('cards.time')}</Table.Th>
            <Table.Th>{t('cards.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((g) => (
            <Table.Tr key={g.id} data-group={g.name}>
              <Table.Td>{g.name}</Table.Td>
              <Table.Td>{g.remark}</Table.Td>
              <Table.Td>{g.customCount} / 10</Table.Td>
              <Table.Td>{g.presetCount}</Table.Td>
              <Table.Td>{g.cardCount}</Table.Td>
              <Table.Td>{formatDateTime(g.createdAt)}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  <Button size="compact-xs" variant="light" component={Link} href={`/custom-service/group-config?groupId=${g.id}`}>
                    {t('cards.groups.config')}
                  </Button>
                  <Button size="compact-xs" variant="subtle" onClick={() => (setNameError(undefined), setEdit({ id: g.id, name: g.name, remark: g.remark }))}>
                    {t('cards.groups.edit')}
                  </Button>
                  <Button size="compact-xs" variant="subtle" color="red" onClick={() => setRemove(g)}>
                    {t('cards.groups.delete')}
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter
        shown={page?.list.length}
        total={page?.total}
        emptyText={t('cards.groups.empty')}
        {...paging.footer}
      />
      <Modal opened={edit !== undefined} onClose={() => setEdit(undefined)} title={t(edit?.id ? 'cards.groups.edit' : 'cards.groups.add')} centered>
        <form onSubmit={(e) => (e.preventDefault(), void save())}>
          <Stack>
            <TextInput
              label={t('cards.groups.name')}
              name="groupName"
              value={edit?.name ?? ''}
              error={nameError}
              onBlur={() => setNameError(edit?.name.trim() ? undefined : t('cards.rule.required'))}
              onChange={(e) => {
                const v = e.currentTarget.value;
                setEdit((d) => d && { ...d, name: v });
              }}
            />
            <TextInput
              label={t('cards.groups.remark')}
              value={edit?.remark ?? ''}
              onChange={(e) => {
                const v = e.currentTarget.value;
                setEdit((d) => d && { ...d, remark: v });
              }}
            />
            <Group justify="flex-end">
              <Button type="submit" data-testid="group-save">
                {t('device.confirm')}
              </Button>
            </Group>
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
          if (g) void cardsApi.deleteGroup(g.id).then(() => (saved(t('cards.done')), load()), () => undefined);
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
const emptyAddress: AddressDraft = { addressType: 'ip', address: '', description: '', importType: 'NEW' };

/** The message key of an address rule failure, in the console's language. */
function ruleKey(type: 'ip' | 'domain', text: string): string | undefined {
  if (!text.trim()) return 'cards.rule.required';
  const wrong = checkAddress(type, text.trim().toLowerCase());
  if (wrong === AddressMessage.Ip) return 'cards.rule.ip';
  if (wrong === AddressMessage.Domain) return 'cards.rule.domain';
  return undefined;
}

/** A group's target addresses: custom ones (at most 10) and presets, each with its carrier state. */
export function GroupConfigPage() {
  const { t } = useTranslation();
  const groupId = Number(new URLSearchParams(useSearch()).get('groupId') ?? '0');
  const [data, setData] = useState<AddressList>();
  const [draft, setDraft] = useState<AddressDraft>();
  const [error, setError] = useState<string>();
  const [remove, setRemove] = useState<DirectionAddress>();

  const load = useCallback(() => {
    if (groupId > 0) cardsApi.addresses(groupId).then(setData, () => undefined);
  }, [groupId]);
  useEffect(load, [load]);

  // Pending addresses settle about 10 s after they were sent: look again when the next one is due.
  useEffect(() => {
    const due = data?.list.filter((a) => a.state === 100 || a.state === 200).map((a) => a.effectiveAt);
    if (!due?.length) return;
    const timer = setTimeout(load, Math.max(1000, Math.min(...due) - Date.now() + 500));
    return () => clearTimeout(timer);
  }, [data, load]);

  const submit = async (d: AddressDraft) => {
    const key = ruleKey(d.addressType, d.address);
    setError(key && t(key));
    if (key) return;
    await cardsApi
      .addAddress({ groupId, addressType: d.addressType, address: d.address.trim(), description: d.description.trim(), importType: d.importType })
      .then(() => (setDraft(undefined), saved(t('cards.address.note')), load()), () => undefined);
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
        <Button onClick={() => (setError(undefined), setDraft(emptyAddress))} disabled={custom >= (data?.maxCustom ?? 10)} data-testid="address-add">
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
              onClick={() => void submit({ addressType: 'domain', address: p.address, description: p.description, importType: 'NEW' })}
            >
              {t('cards.address.addPreset')}: {p.description}
            </Button>
          ))}
      </Group>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('cards.address.address')}</Table.Th>
            <Table.Th>{t('cards.address.type')}</Table.Th>
            <Table.Th>{t('cards.address.description')}</Table.Th>
            <Table.Th>{t('cards.address.source')}</Table.Th>
            <Table.Th>{t('cards.address.importType')}</Table.Th>
            <Table.Th>{t('cards.address.state')}</Table.Th>
            <Table.Th>{t('cards.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data?.list.map((a) => (
            <Table.Tr key={a.id} data-address={a.address}>
              <Table.Td>{a.address}</Table.Td>
              <Table.Td>{label(addressTypeLabels, a.addressType)}</Table.Td>
              <Table.Td>{a.description}</Table.Td>
              <Table.Td>{label(addressSourceLabels, a.source)}</Table.Td>
              <Table.Td>{label(importTypeLabels, a.importType)}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={a.state === 500 ? 'green' : a.state === 100 || a.state === 200 ? 'blue' : 'red'} data-testid="address-state">
                  {label(groupAddressStateLabels, a.state)}
                </Badge>
              </Table.Td>
              <Table.Td>
                {(a.state === 500 || a.state === 300 || a.state === 400) && (
                  <Button size="compact-xs" variant="subtle" color="red" onClick={() => setRemove(a)}>
                    {t('cards.address.delete')}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {data?.list.length === 0 && (
        <Text ta="center" c="dimmed">
          {t('cards.address.empty')}
        </Text>
      )}
      <Modal opened={draft !== undefined} onClose={() => setDraft(undefined)} title={t('cards.address.add')} centered>
        <form onSubmit={(e) => (e.preventDefault(), draft && void submit(draft))}>
          <Stack>
            <Select
              label={t('cards.address.type')}
              data={options(addressTypeLabels)}
              value={draft?.addressType ?? 'ip'}
              onChange={(v) => setDraft((d) => d && { ...d, addressType: v === 'domain' ? 'domain' : 'ip' })}
              allowDeselect={false}
              data-testid="address-type"
            />
            <TextInput
              label={t('cards.address.address')}
              name="address"
              value={draft?.address ?? ''}
              error={error}
              onBlur={() => draft && setError(ruleKey(draft.addressType, draft.address) && t(ruleKey(draft.addressType, draft.address) ?? ''))}
              onChange={(e) => {
                const v = e.currentTarget.value;
                setDraft((d) => d && { ...d, address: v });
              }}
            />
            <TextInput
              label={t('cards.address.description')}
              name="description"
              value={draft?.description ?? ''}
              onChange={(e) => {
                const v = e.currentTarget.value;
                setDraft((d) => d && { ...d, description: v });
              }}
            />
            <Select
              label={t('cards.address.importType')}
              data={options(importTypeLabels)}
              value={draft?.importType ?? 'NEW'}
              onChange={(v) => setDraft((d) => d && { ...d, importType: v === 'TRANSFER' ? 'TRANSFER' : 'NEW' })}
              allowDeselect={false}
            />
            <Group justify="flex-end">
              <Button type="submit" data-testid="address-save">
                {t('device.confirm')}
              </Button>
            </Group>
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
          if (a) void cardsApi.deleteAddress(a.id).then(load, () => undefined);
        }}
        onCancel={() => setRemove(undefined)}
        danger
      />
    </Stack>
  );
}
