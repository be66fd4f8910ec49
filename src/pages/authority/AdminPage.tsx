import { Alert, Button, Group, Modal, PasswordInput, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { hashPassword } from '../../api/auth.ts';
import type { Page } from '../../api/devices.ts';
import { type AdminAccount, permitApi, type Role } from '../../api/permits.ts';
import { RequestError, TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from '../../format/date.ts';
import { useCan } from '../../state/permissions.ts';
import { session } from '../../state/session.ts';
import { checkAccount, checkPassword } from '../../validation/login-rules.ts';
import { checkEmail, checkOptionalText, checkPhone } from './form-rules.ts';

/** The screen's keys (platform-core section 2): the server checks `admin_list` on every account call. */
const ADMIN_KEYS = ['managers_list', 'admin_list'];

type Field = 'account' | 'password' | 'roleId' | 'nickname' | 'email' | 'phone';
type Draft = Record<Field, string> & { readonly id?: number };
const emptyDraft: Draft = { account: '', password: '', roleId: '', nickname: '', email: '', phone: '' };

function check(draft: Draft, field: Field): string | undefined {
  const value = draft[field];
  switch (field) {
    case 'account':
      return draft.id === undefined ? checkAccount(value) : undefined;
    // Editing: an empty password keeps the current one.
    case 'password':
      return draft.id !== undefined && value === '' ? undefined : checkPassword(value);
    case 'roleId':
      return value ? undefined : 'authority.required';
    case 'nickname':
      return checkOptionalText(value);
    case 'email':
      return checkEmail(value);
    case 'phone':
      return checkPhone(value);
  }
}

function AccountDialog({ draft: initial, onClose, onSaved }: { draft: Draft; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Draft>(initial);
  const [roles, setRoles] = useState<Role[]>();
  const [errors, setErrors] = useState<Partial<Record<Field | 'form', string>>>({});
  const [busy, setBusy] = useState(false);
  const editing = draft.id !== undefined;

  useEffect(() => {
    permitApi.allRoles().then(setRoles, (err: unknown) => setErrors({ form: err instanceof Error ? err.message : String(err) }));
  }, []);

  const fields: Field[] = ['account', 'password', 'roleId', 'nickname', 'email', 'phone'];
  const validate = (field: Field) => {
    const key = check(draft, field);
    setErrors((e) => ({ ...e, [field]: key && t(key) }));
    return key === undefined;
  };

  const save = async () => {
    if (!fields.map(validate).every(Boolean)) return;
    setBusy(true);
    try {
      const contact = { nickname: draft.nickname.trim(), email: draft.email.trim(), phone: draft.phone.trim() };
      if (draft.id === undefined) {
        await permitApi.addAccount({ account: draft.account.trim(), password: await hashPassword(draft.password), roleId: Number(draft.roleId), ...contact });
      } else {
        const changes = { id: draft.id, ...contact };
        const roleChanged = draft.roleId !== initial.roleId;
        await permitApi.updateAccount({
          ...changes,
          ...(roleChanged ? { roleId: Number(draft.roleId) } : {}),
          ...(draft.password ? { password: await hashPassword(draft.password) } : {}),
        });
      }
      onSaved();
    } catch (err) {
      setErrors({ form: err instanceof RequestError ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const input = (field: Field) => ({
    name: field,
    value: draft[field],
    error: errors[field],
    // A shown error goes as soon as the value is fixed, so the form does not shift under a click on blur.
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const value = e.currentTarget.value;
      const next = { ...draft, [field]: value };
      setDraft(next);
      if (errors[field] && !check(next, field)) setErrors((x) => ({ ...x, [field]: undefined }));
    },
    onBlur: () => validate(field),
  });

  // The current role stays selectable when editing, even if the caller could not hand it out anew.
  const roleOptions = (roles ?? []).filter((r) => r.grantable !== false || String(r.id) === initial.roleId).map((r) => ({ value: String(r.id), label: r.name }));

  return (
    <Modal opened onClose={onClose} title={t(editing ? 'authority.editAdmin' : 'authority.addAdmin')} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Stack>
          {errors.form && (
            <Alert color="red" data-testid="admin-form-error">
              {errors.form}
            </Alert>
          )}
          <TextInput label={t('authority.account')} withAsterisk disabled={editing} autoComplete="off" {...input('account')} />
          <PasswordInput
            label={t(editing ? 'authority.newPassword' : 'login.password')}
            description={editing ? t('authority.keepPassword') : undefined}
            withAsterisk={!editing}
            autoComplete="new-password"
            {...input('password')}
          />
          <Select
            label={t('authority.role')}
            withAsterisk
            data={roleOptions}
            value={draft.roleId || null}
            error={errors.roleId}
            onChange={(v) => setDraft((d) => ({ ...d, roleId: v ?? '' }))}
            data-testid="admin-role"
            comboboxProps={{ withinPortal: true }}
          />
          <TextInput label={t('authority.nickname')} {...input('nickname')} />
          <TextInput label={t('authority.email')} {...input('email')} />
          <TextInput label={t('org.phone')} {...input('phone')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('device.cancel')}
            </Button>
            <Button type="submit" loading={busy} data-testid="admin-save">
              {t('device.confirm')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Administrators: the accounts of the caller's organisation, with add, edit and delete. */
export function AdminPage() {
  const { t } = useTranslation();
  const can = useCan();
  const me = useSnapshot(session).user?.id;
  const [filter, setFilter] = useState('');
  const [account] = useDebouncedValue(filter.trim(), 300);
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const [page, setPage] = useState<Page<AdminAccount>>();
  const [draft, setDraft] = useState<Draft>();
  const [deleting, setDeleting] = useState<AdminAccount>();

  const load = useCallback(() => {
    permitApi.adminList(pageNum, pageSize, account || undefined).then(setPage, () => undefined);
  }, [account, pageNum, pageSize]);
  useEffect(load, [load]);

  const done = (message: string) => {
    notifications.show({ color: 'green', message, autoClose: TOAST_MS });
    load();
  };

  const remove = async () => {
    if (!deleting) return;
    const row = deleting;
    setDeleting(undefined);
    await permitApi.deleteAccount(row.id).then(() => done(t('authority.deleted')), () => undefined);
  };

  const manage = can(...ADMIN_KEYS);
  return (
    <>
      <Title order={3} mb="md">
        {t('route.authorityAdmin')}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('authority.searchAccount')} value={filter} onChange={(e) => (setFilter(e.currentTarget.value), setPageNum(1))} data-testid="admin-filter" />
        {manage && (
          <Button onClick={() => setDraft(emptyDraft)} data-testid="admin-add">
            {t('authority.addAdmin')}
          </Button>
        )}
      </Group>
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('authority.account')}</Table.Th>
            <Table.Th>{t('authority.nickname')}</Table.Th>
            <Table.Th>{t('authority.role')}</Table.Th>
            <Table.Th>{t('authority.email')}</Table.Th>
            <Table.Th>{t('org.phone')}</Table.Th>
            <Table.Th>{t('authority.createdAt')}</Table.Th>
            <Table.Th>{t('device.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((row) => (
            <Table.Tr key={row.id} data-account={row.account}>
              <Table.Td>{row.account}</Table.Td>
              <Table.Td>{row.nickname}</Table.Td>
              <Table.Td>{row.role}</Table.Td>
              <Table.Td>{row.email}</Table.Td>
              <Table.Td>{row.phone}</Table.Td>
              <Table.Td>{formatDateTime(row.createdAt)}</Table.Td>
              <Table.Td>
                {manage && (
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-xs"
                      variant="light"
                      onClick={() => setDraft({ id: row.id, account: row.account, password: '', roleId: String(row.roleId), nickname: row.nickname, email: row.email, phone: row.phone })}
                    >
                      {t('authority.edit')}
                    </Button>
                    {/* Deleting yourself is refused by the server; the button is not offered. */}
                    {row.id !== me && (
                      <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(row)}>
                        {t('authority.delete')}
                      </Button>
                    )}
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter
        shown={page?.list.length}
        total={page?.total}
        emptyText={t('authority.noAdmins')}
        {...paging.footer}
      />
      {draft && (
        <AccountDialog
          draft={draft}
          onClose={() => setDraft(undefined)}
          onSaved={() => {
            setDraft(undefined);
            done(t('authority.saved'));
          }}
        />
      )}
      <ConfirmDialog
        opened={deleting !== undefined}
        title={t('authority.delete')}
        message={t('authority.deleteAdminConfirm', { name: deleting?.account ?? '' })}
        onConfirm={() => void remove()}
        onCancel={() => setDeleting(undefined)}
        danger
        confirmTestId="admin-confirm"
      />
    </>
  );
}
