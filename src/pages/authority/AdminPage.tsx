import { Button, Group, Modal, PasswordInput, Select, Stack, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { hashPassword } from '../../api/auth.ts';
import { type AdminAccount, permitApi, type Role } from '../../api/permits.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { formatDateTime } from '../../format/date.ts';
import { notifications } from '../../layout/toast.ts';
import { useCan } from '../../state/permissions.ts';
import { session } from '../../state/session.ts';
import { checkAccount, checkPassword } from '../../validation/login-rules.ts';
import { checkPhone } from './form-rules.ts';
import { FormActions } from '../../components/FormActions.tsx';

/** The screen's keys (platform-core section 2): the server checks `admin_list` on every account call. */
const ADMIN_KEYS = ['managers_list', 'admin_list'];

type Values = { account: string; password: string; roleId: string; nickname: string; email: string; phone: string };
const blank: Values = { account: '', password: '', roleId: '', nickname: '', email: '', phone: '' };

/** Adds an account, or edits one (`editing`): an empty password then keeps the current one. */
function AccountDialog({ editing, onClose, onSaved }: { editing: AdminAccount | undefined; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [roles, setRoles] = useState<Role[]>([]);
  const initialRole = editing ? String(editing.roleId) : '';
  const { form, field, onSubmit, submitting } = useConsoleForm<Values>({
    initialValues: editing ? { ...blank, roleId: initialRole, nickname: editing.nickname, email: editing.email, phone: editing.phone } : blank,
    rules: {
      account: editing ? [] : [rules.key(checkAccount)],
      password: [(v) => (editing && v === '' ? undefined : rules.key(checkPassword)(v, {}))],
      roleId: [(v) => (v ? undefined : { key: 'kit.form.required' })],
      nickname: [rules.maxLength(), rules.noEmoji()],
      email: [rules.maxLength(), rules.email()],
      phone: [rules.key((v) => checkPhone(v))],
    },
    serverKeys: { 'account.taken': 'account' },
  });

  useEffect(() => {
    permitApi.allRoles().then(setRoles, () => setRoles([]));
  }, []);

  const save = async (v: Values) => {
    const contact = { nickname: v.nickname.trim(), email: v.email.trim(), phone: v.phone.trim() };
    if (!editing) {
      await permitApi.addAccount({ account: v.account.trim(), password: await hashPassword(v.password), roleId: Number(v.roleId), ...contact });
    } else {
      await permitApi.updateAccount({
        id: editing.id,
        ...contact,
        ...(v.roleId !== initialRole ? { roleId: Number(v.roleId) } : {}),
        ...(v.password ? { password: await hashPassword(v.password) } : {}),
      });
    }
    onSaved();
  };

  // The current role stays selectable when editing, even if the caller could not hand it out anew.
  const roleOptions = roles.filter((r) => r.grantable !== false || String(r.id) === initialRole).map((r) => ({ value: String(r.id), label: r.name }));
  const role = form.getInputProps('roleId');

  return (
    <Modal opened onClose={onClose} title={t(editing ? 'authority.editAdmin' : 'authority.addAdmin')} centered>
      <form onSubmit={onSubmit(save)} noValidate>
        <Stack>
          {editing ? (
            <TextInput label={t('authority.account')} value={editing.account} disabled />
          ) : (
            <TextInput label={t('authority.account')} withAsterisk autoComplete="off" {...field('account')} />
          )}
          <PasswordInput
            label={t(editing ? 'authority.newPassword' : 'login.password')}
            description={editing ? t('authority.keepPassword') : undefined}
            withAsterisk={!editing}
            autoComplete="new-password"
            {...field('password')}
          />
          <Select
            label={t('authority.role')}
            withAsterisk
            data={roleOptions}
            value={form.values.roleId || null}
            error={role.error as React.ReactNode}
            onChange={(v) => {
              form.setFieldValue('roleId', v ?? '');
              if (v) form.clearFieldError('roleId');
            }}
            data-testid="admin-role"
            comboboxProps={{ withinPortal: true }}
          />
          <TextInput label={t('authority.nickname')} {...field('nickname')} />
          <TextInput label={t('authority.email')} {...field('email')} />
          <TextInput label={t('org.phone')} {...field('phone')} />
          <FormActions submitting={submitting} onCancel={onClose} submitTestId="admin-save" />
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
  const [reload, setReload] = useState(0);
  const [dialog, setDialog] = useState<{ editing: AdminAccount | undefined }>();
  const [deleting, setDeleting] = useState<AdminAccount>();

  const load = useCallback((q: ListQuery) => permitApi.adminList(q.pageNum, q.pageSize, account || undefined), [account]);

  const done = (message: string) => {
    notifications.show({ color: 'green', message, autoClose: TOAST_MS });
    setReload((n) => n + 1);
  };

  const remove = async () => {
    if (!deleting) return;
    const row = deleting;
    setDeleting(undefined);
    await permitApi.deleteAccount(row.id).then(() => done(t('authority.deleted')), () => undefined);
  };

  const manage = can(...ADMIN_KEYS);
  const columns = useMemo(
    (): DataColumn<AdminAccount>[] => [
      { key: 'account', title: t('authority.account'), fixed: true, render: (r) => r.account },
      { key: 'nickname', title: t('authority.nickname'), render: (r) => r.nickname },
      { key: 'role', title: t('authority.role'), render: (r) => r.role },
      { key: 'email', title: t('authority.email'), render: (r) => r.email },
      { key: 'phone', title: t('org.phone'), render: (r) => r.phone },
      { key: 'createdAt', title: t('authority.createdAt'), render: (r) => formatDateTime(r.createdAt) },
    ],
    [t],
  );

  return (
    <>
      <Title order={3} mb="md">
        {t('route.authorityAdmin')}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('authority.searchAccount')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} data-testid="admin-filter" />
        {manage && (
          <Button onClick={() => setDialog({ editing: undefined })} data-testid="admin-add">
            {t('authority.addAdmin')}
          </Button>
        )}
      </Group>
      <DataTable<AdminAccount, number>
        id="admin-accounts"
        columns={columns}
        rowKey={(r) => r.id}
        rowProps={(r) => ({ 'data-account': r.account })}
        load={load}
        filterKey={account}
        reload={reload}
        emptyText={t('authority.noAdmins')}
        actions={
          manage
            ? (row) => (
                <>
                  <Button size="compact-xs" variant="light" onClick={() => setDialog({ editing: row })}>
                    {t('authority.edit')}
                  </Button>
                  {/* Deleting yourself is refused by the server; the button is not offered. */}
                  {row.id !== me && (
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(row)}>
                      {t('authority.delete')}
                    </Button>
                  )}
                </>
              )
            : undefined
        }
      />
      {dialog && (
        <AccountDialog
          editing={dialog.editing}
          onClose={() => setDialog(undefined)}
          onSaved={() => {
            setDialog(undefined);
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
