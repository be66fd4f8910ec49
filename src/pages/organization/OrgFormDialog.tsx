import { Modal, PasswordInput, Select, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_LONG_TEXT } from '../../../protocol/index.ts';
import { hashPassword } from '../../api/auth.ts';
import { type LoginRole, type Organization, orgApi } from '../../api/orgs.ts';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { checkAccount, checkPassword } from '../../validation/login-rules.ts';
import { FormActions } from '../../components/FormActions.tsx';

const MAX_PUBLIC_KEY = 4096;

const pad = (n: number) => String(n).padStart(2, '0');
/** An expiry as the date input shows it (yyyy-MM-dd, local). */
export function dateInputValue(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
/** The end of the chosen local day: an account expiring on a date may still log in on that date. */
function expiryOf(value: string): number | null {
  if (!value) return null;
  const [y, m, d] = value.split('-').map(Number);
  return new Date(y ?? 1970, (m ?? 1) - 1, d ?? 1, 23, 59, 59).getTime();
}

interface Props {
  /** undefined: closed; 'add': a new organisation; an organisation: edit it. */
  readonly target: 'add' | Organization | undefined;
  /** The organisations listed, offered as the new one's parent. */
  readonly parents: readonly { row: Organization; depth: number }[];
  /** The caller's own organisation: its role, customer role and expiry are set from above. */
  readonly ownOrgId: number | undefined;
  readonly onClose: () => void;
  readonly onSaved: () => void;
}

const blank = {
  name: '',
  alias: '',
  parentId: '',
  account: '',
  password: '',
  email: '',
  phone: '',
  contactPerson: '',
  remark: '',
  roleId: '',
  customerType: '2',
  publicKey: '',
  expireTime: '',
};
type Values = typeof blank;

/** The add and edit dialog of organisation management, with the spec's fields and rules. */
export function OrgFormDialog({ target, parents, ownOrgId, onClose, onSaved }: Props) {
  const { t } = useTranslation();
  const adding = target === 'add';
  const editing = target !== undefined && target !== 'add' ? target : undefined;
  const own = editing !== undefined && editing.id === ownOrgId;
  const [loginRoles, setLoginRoles] = useState<readonly LoginRole[]>([]);
  const text = [rules.maxLength(), rules.noEmoji()];
  const { form, field, onSubmit, submitting } = useConsoleForm<Values>({
    initialValues: blank,
    rules: {
      name: [rules.required(), ...text],
      alias: text,
      account: adding ? [rules.key(checkAccount)] : [],
      password: adding ? [rules.key(checkPassword)] : [],
      email: [rules.maxLength(), rules.email()],
      phone: [rules.phone()],
      contactPerson: text,
      remark: [rules.maxLength(MAX_LONG_TEXT), rules.noEmoji()],
      roleId: own ? [] : [(v) => (v ? undefined : { key: 'org.roleRequired' })],
      publicKey: [rules.maxLength(MAX_PUBLIC_KEY), rules.noChinese(), rules.noEmoji()],
    },
    serverKeys: { 'account.taken': 'account' },
  });

  useEffect(() => {
    if (target === undefined) return;
    const o = editing;
    form.setValues(
      o
        ? {
            ...blank,
            name: o.name,
            alias: o.alias,
            email: o.email,
            phone: o.phone,
            contactPerson: o.contactPerson,
            remark: o.remark,
            roleId: o.roleId === null ? '' : String(o.roleId),
            customerType: String(o.customerType),
            publicKey: o.publicKey,
            expireTime: dateInputValue(o.expireTime),
          }
        : blank,
    );
    form.resetDirty();
    form.clearErrors();
    // Fetched on each opening: the roles the caller may give change as roles are edited.
    orgApi.loginRoles().then(setLoginRoles, () => setLoginRoles([]));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on each opening only
  }, [target]);

  const save = async (v: Values) => {
    const common = {
      alias: v.alias.trim(),
      email: v.email.trim(),
      phone: v.phone.trim(),
      contactPerson: v.contactPerson.trim(),
      remark: v.remark.trim(),
      publicKey: v.publicKey.trim(),
    };
    if (editing) {
      const before = dateInputValue(editing.expireTime);
      await orgApi.update(
        editing.id,
        {
          name: v.name.trim(),
          ...common,
          // Role, customer role and expiry are sent only when changed: they need more rights than the rest.
          ...(!own && v.roleId !== String(editing.roleId ?? '') ? { roleId: Number(v.roleId) } : {}),
          ...(!own && v.customerType !== String(editing.customerType) ? { customerType: Number(v.customerType) } : {}),
          ...(!own && v.expireTime !== before ? { expireTime: expiryOf(v.expireTime) } : {}),
        },
        true,
      );
    } else {
      await orgApi.add(
        {
          name: v.name.trim(),
          account: v.account.trim(),
          password: await hashPassword(v.password),
          roleId: Number(v.roleId),
          ...(v.parentId ? { parentId: Number(v.parentId) } : {}),
          ...common,
          customerType: Number(v.customerType),
          expireTime: expiryOf(v.expireTime),
        },
        true,
      );
    }
    onSaved();
  };

  const roleOptions = loginRoles.map((r) => ({ value: String(r.id), label: r.name }));
  // The current role stays shown even when the caller may not grant it.
  if (editing?.roleId != null && !roleOptions.some((o) => o.value === String(editing.roleId))) roleOptions.push({ value: String(editing.roleId), label: editing.role });

  return (
    <Modal opened={target !== undefined} onClose={onClose} title={t(adding ? 'org.add' : 'org.edit')} centered size="lg">
      <form onSubmit={onSubmit(save)} data-testid="org-form">
        <Stack gap="sm">
          <SimpleGrid cols={2} spacing="sm" verticalSpacing="xs">
            <TextInput label={t('org.name')} withAsterisk {...field('name')} />
            <TextInput label={t('org.alias')} {...field('alias')} />
            {adding && (
              <>
                <Select
                  label={t('org.parent')}
                  data={parents.map(({ row, depth }) => ({ value: String(row.id), label: `${'\u3000'.repeat(depth)}${row.name}` }))}
                  {...form.getInputProps('parentId')}
                  value={form.values.parentId || null}
                  onChange={(v) => form.setFieldValue('parentId', v ?? '')}
                  clearable
                  comboboxProps={{ withinPortal: true }}
                />
                <TextInput label={t('org.account')} withAsterisk {...field('account')} maxLength={16} />
                <PasswordInput label={t('org.password')} withAsterisk {...field('password')} maxLength={16} />
              </>
            )}
            <Select
              label={t('org.role')}
              withAsterisk={!own}
              disabled={own}
              data={roleOptions}
              value={form.values.roleId || null}
              error={form.errors.roleId}
              onChange={(v) => {
                form.setFieldValue('roleId', v ?? '');
                form.clearFieldError('roleId');
              }}
              data-testid="org-role"
              comboboxProps={{ withinPortal: true }}
            />
            <Select
              label={t('org.customerType')}
              disabled={own}
              data={[
                { value: '1', label: t('org.customerType1') },
                { value: '2', label: t('org.customerType2') },
              ]}
              value={form.values.customerType}
              onChange={(v) => form.setFieldValue('customerType', v ?? '2')}
              allowDeselect={false}
              data-testid="org-customer-type"
              comboboxProps={{ withinPortal: true }}
            />
            <TextInput label={t('org.expireTime')} type="date" disabled={own} {...field('expireTime')} />
            <TextInput label={t('org.contact')} {...field('contactPerson')} />
            <TextInput label={t('org.phone')} {...field('phone')} maxLength={11} inputMode="tel" />
            <TextInput label={t('org.email')} {...field('email')} />
            {adding && <span />}
            <Textarea label={t('org.remark')} autosize minRows={2} maxRows={4} {...field('remark')} />
            <Textarea label={t('org.publicKey')} autosize minRows={2} maxRows={4} styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }} {...field('publicKey')} />
          </SimpleGrid>
          <FormActions submitting={submitting} onCancel={onClose} submitTestId="org-save" />
        </Stack>
      </form>
    </Modal>
  );
}
