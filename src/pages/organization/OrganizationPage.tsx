import { Badge, Button, Group, Modal, PasswordInput, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { hashPassword } from '../../api/auth.ts';
import type { Page } from '../../api/devices.ts';
import { type LoginRole, type Organization, orgApi } from '../../api/orgs.ts';
import { TOAST_MS } from '../../api/request.ts';
import { checkAccount, checkPassword } from '../../validation/login-rules.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';

const FROZEN = 2;
// The whole tree fits one page for most customers; the list is still paged by the server.
const PAGE_SIZE = 100;

interface Draft {
  name: string;
  account: string;
  password: string;
  parentId: string;
  /** The login account's role: chosen every time, from the roles the caller may give (docs/DECISIONS.md). */
  roleId: string;
  contactPerson: string;
  phone: string;
}
const emptyDraft: Draft = { name: '', account: '', password: '', parentId: '', roleId: '', contactPerson: '', phone: '' };

/** Orders organisations as a tree (parents before children) with each one's depth. */
function asTree(list: readonly Organization[]): { org: Organization; depth: number }[] {
  const ids = new Set(list.map((o) => o.id));
  const children = new Map<number | null, Organization[]>();
  for (const o of list) {
    const parent = o.parentId !== null && ids.has(o.parentId) ? o.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), o]);
  }
  const out: { org: Organization; depth: number }[] = [];
  const walk = (parent: number | null, depth: number) => {
    for (const org of children.get(parent) ?? []) {
      out.push({ org, depth });
      walk(org.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** Organisation management: the tree with device counts; add, freeze or unfreeze, reset password, kick out, delete. */
export function OrganizationPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState('');
  const [name] = useDebouncedValue(filter.trim(), 300);
  const [pageNum, setPageNum] = useState(1);
  const [page, setPage] = useState<Page<Organization>>();
  const [draft, setDraft] = useState<Draft>();
  const [errors, setErrors] = useState<Partial<Record<keyof Draft, string>>>({});
  const [loginRoles, setLoginRoles] = useState<readonly LoginRole[]>([]);
  const [confirm, setConfirm] = useState<{ org: Organization; action: 'delete' | 'freeze' }>();

  const load = useCallback(() => {
    orgApi.list(pageNum, PAGE_SIZE, name || undefined).then(setPage, () => undefined);
  }, [name, pageNum]);
  useEffect(load, [load]);

  const done = (message: string) => {
    notifications.show({ color: 'green', message, autoClose: TOAST_MS });
    load();
  };

  const validate = (d: Draft) => {
    const e: Partial<Record<keyof Draft, string>> = {};
    if (!d.name.trim()) e.name = t('org.required');
    const account = checkAccount(d.account);
    if (account) e.account = t(account);
    const password = checkPassword(d.password);
    if (password) e.password = t(password);
    if (!d.roleId) e.roleId = t('org.roleRequired');
    setErrors(e);
    return Object.keys(e).length === 0;
  };

  const save = async (d: Draft) => {
    if (!validate(d)) return;
    await orgApi
      .add({
        name: d.name.trim(),
        account: d.account.trim(),
        password: await hashPassword(d.password),
        roleId: Number(d.roleId),
        ...(d.parentId ? { parentId: Number(d.parentId) } : {}),
        ...(d.contactPerson.trim() ? { contactPerson: d.contactPerson.trim() } : {}),
        ...(d.phone.trim() ? { phone: d.phone.trim() } : {}),
      })
      .then(
        () => {
          setDraft(undefined);
          done(t('org.saved'));
        },
        () => undefined,
      );
  };

  const act = async () => {
    if (!confirm) return;
    const { org, action } = confirm;
    setConfirm(undefined);
    const call = action === 'delete' ? orgApi.remove(org.id) : orgApi.freeze(org.id, org.freezeState === FROZEN ? 1 : 2);
    await call.then(() => done(t('org.done')), () => undefined);
  };

  const openAdd = () => {
    setErrors({});
    setDraft(emptyDraft);
    // Fetched on each opening: the roles the caller may give change as roles are edited.
    orgApi.loginRoles().then(setLoginRoles, () => setLoginRoles([]));
  };

  const rows = asTree(page?.list ?? []);
  const field = (key: keyof Draft) => ({
    value: draft?.[key] ?? '',
    error: errors[key],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const value = e.currentTarget.value;
      setDraft((d) => d && { ...d, [key]: value });
    },
  });

  return (
    <>
      <Title order={3} mb="md">
        {t('route.organizationManagement')}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('org.search')} value={filter} onChange={(e) => (setFilter(e.currentTarget.value), setPageNum(1))} />
        <Button onClick={openAdd} data-testid="org-add">
          {t('org.add')}
        </Button>
      </Group>
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('org.name')}</Table.Th>
            <Table.Th>{t('org.account')}</Table.Th>
            <Table.Th>{t('org.devices')}</Table.Th>
            <Table.Th>{t('org.state')}</Table.Th>
            <Table.Th>{t('device.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(({ org, depth }) => (
            <Table.Tr key={org.id} data-org={org.name}>
              <Table.Td style={{ paddingLeft: 12 + depth * 20 }}>{org.name}</Table.Td>
              <Table.Td>{org.account}</Table.Td>
              <Table.Td>
                {org.total} ({t('dashboard.online')} {org.online})
              </Table.Td>
              <Table.Td>
                <Badge color={org.freezeState === FROZEN ? 'red' : 'green'} variant="light" data-testid="org-state">
                  {t(org.freezeState === FROZEN ? 'org.frozen' : 'org.normal')}
                </Badge>
              </Table.Td>
              <Table.Td>
                {org.parentId !== null && (
                  <Group gap={4}>
                    <Button size="compact-xs" variant="light" onClick={() => setConfirm({ org, action: 'freeze' })}>
                      {t(org.freezeState === FROZEN ? 'org.unfreeze' : 'org.freeze')}
                    </Button>
                    {org.accountId !== null && (
                      <Button size="compact-xs" variant="subtle" onClick={() => void orgApi.kickOut(org.accountId ?? 0).then(() => done(t('org.done')), () => undefined)}>
                        {t('org.kickOut')}
                      </Button>
                    )}
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => setConfirm({ org, action: 'delete' })}>
                      {t('org.delete')}
                    </Button>
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter shown={page?.list.length} total={page?.total} emptyText={t('org.empty')} pageNum={pageNum} pageSize={PAGE_SIZE} onPage={setPageNum} />
      <Modal opened={draft !== undefined} onClose={() => setDraft(undefined)} title={t('org.add')} centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (draft) void save(draft);
          }}
        >
          <Stack>
            <TextInput label={t('org.name')} name="name" {...field('name')} />
            <Select
              label={t('org.parent')}
              data={rows.map(({ org, depth }) => ({ value: String(org.id), label: `${'\u3000'.repeat(depth)}${org.name}` }))}
              value={draft?.parentId || null}
              onChange={(v) => setDraft((d) => d && { ...d, parentId: v ?? '' })}
              clearable
            />
            <TextInput label={t('org.account')} name="account" {...field('account')} />
            <PasswordInput label={t('login.password')} name="password" {...field('password')} />
            <Select
              label={t('org.role')}
              withAsterisk
              data={loginRoles.map((r) => ({ value: String(r.id), label: r.name }))}
              value={draft?.roleId || null}
              error={errors.roleId}
              onChange={(v) => setDraft((d) => d && { ...d, roleId: v ?? '' })}
              data-testid="org-role"
              comboboxProps={{ withinPortal: true }}
            />
            <TextInput label={t('org.contact')} name="contactPerson" {...field('contactPerson')} />
            <TextInput label={t('org.phone')} name="phone" {...field('phone')} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setDraft(undefined)}>
                {t('device.cancel')}
              </Button>
              <Button type="submit" data-testid="org-save">
                {t('device.confirm')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <ConfirmDialog
        opened={confirm !== undefined}
        title={confirm ? t(confirm.action === 'delete' ? 'org.delete' : confirm.org.freezeState === FROZEN ? 'org.unfreeze' : 'org.freeze') : ''}
        message={confirm ? t(confirm.action === 'delete' ? 'org.deleteConfirm' : 'org.freezeConfirm', { name: confirm.org.name }) : ''}
        onConfirm={() => void act()}
        onCancel={() => setConfirm(undefined)}
        danger
        confirmTestId="org-confirm"
      />
    </>
  );
}
