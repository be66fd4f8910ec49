import { Button, Group, Modal, PasswordInput, Stack } from '@mantine/core';
import { notifications } from './toast.ts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { hashPassword } from '../api/auth.ts';
import { request, TOAST_MS } from '../api/request.ts';
import { closePasswordDialog, passwordDialog } from '../state/password-dialog.ts';
import { session } from '../state/session.ts';
import { checkPassword } from '../validation/login-rules.ts';

type Field = 'old' | 'next' | 'confirm';

/** Own password change (platform-core sections 2 and 5): old and new follow the password rule; confirm must match. */
export function ChangePasswordDialog() {
  const { t } = useTranslation();
  const { opened } = useSnapshot(passwordDialog);
  const user = useSnapshot(session).user;
  const [values, setValues] = useState<Record<Field, string>>({ old: '', next: '', confirm: '' });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  const check = (field: Field, v = values): string | undefined => {
    if (field === 'confirm') return v.confirm === v.next ? undefined : t('password.inconsistent');
    const key = checkPassword(v[field]);
    return key && t(key);
  };
  const close = () => {
    setValues({ old: '', next: '', confirm: '' });
    setErrors({});
    closePasswordDialog();
  };

  const submit = async () => {
    const found = { old: check('old'), next: check('next'), confirm: check('confirm') };
    setErrors(found);
    if (Object.values(found).some(Boolean) || !user) return;
    // The spec's call takes only the new password; the old one is checked first with the account's own
    // authorisation-password call, in the body of its POST twin: the spec's GET puts the hash in the URL,
    // where request logs and proxies keep it.
    const oldOk = await request<boolean>({ method: 'POST', url: '/org/authorizationPassword', data: { password: await hashPassword(values.old) } }).catch(() => false);
    if (!oldOk) {
      setErrors({ old: t('password.oldWrong') });
      return;
    }
    await request<unknown>({ method: 'POST', url: '/permit/update-self-password', data: { id: user.id, password: await hashPassword(values.next) } }).then(
      () => {
        notifications.show({ color: 'green', message: t('password.changed'), autoClose: TOAST_MS });
        close();
      },
      () => undefined,
    );
  };

  const input = (field: Field) => ({
    value: values[field],
    error: errors[field],
    name: `password-${field}`,
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const value = e.currentTarget.value;
      setValues((v) => ({ ...v, [field]: value }));
    },
    onBlur: () => setErrors((e) => ({ ...e, [field]: check(field) })),
  });

  return (
    <Modal opened={opened} onClose={close} title={t('password.title')} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack>
          <PasswordInput label={t('password.old')} {...input('old')} />
          <PasswordInput label={t('password.new')} {...input('next')} />
          <PasswordInput label={t('password.confirm')} {...input('confirm')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('device.cancel')}
            </Button>
            <Button type="submit" data-testid="password-save">
              {t('device.confirm')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
