import { Modal, PasswordInput, Stack } from '@mantine/core';
import { notifications } from './toast.ts';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { hashPassword } from '../api/auth.ts';
import { request, TOAST_MS } from '../api/request.ts';
import { rules, useConsoleForm } from '../components/use-console-form.ts';
import { closePasswordDialog, passwordDialog } from '../state/password-dialog.ts';
import { session } from '../state/session.ts';
import { checkPassword } from '../validation/login-rules.ts';
import { FormActions } from '../components/FormActions.tsx';

/** Own password change (platform-core sections 2 and 5): old and new follow the password rule; confirm must match. */
export function ChangePasswordDialog() {
  const { t } = useTranslation();
  const { opened } = useSnapshot(passwordDialog);
  const user = useSnapshot(session).user;
  const { form, field, onSubmit, submitting } = useConsoleForm({
    initialValues: { old: '', next: '', confirm: '' },
    rules: {
      old: [rules.key(checkPassword)],
      next: [rules.key(checkPassword)],
      confirm: [(v, values) => (v === values.next ? undefined : { key: 'password.inconsistent' })],
    },
    serverKeys: { 'permit.oldPasswordWrong': 'old' },
  });
  const close = () => {
    form.reset();
    closePasswordDialog();
  };

  // The spec's call takes the new password; ours also takes the old one and checks it there, so that every
  // account can change its own (the org_list-gated authorisation-password call is not every account's).
  const submit = async (values: { old: string; next: string }) => {
    if (!user) return;
    await request<unknown>({
      method: 'POST',
      url: '/permit/update-self-password',
      silent: true,
      data: { id: user.id, password: await hashPassword(values.next), oldPassword: await hashPassword(values.old) },
    });
    notifications.show({ color: 'green', message: t('password.changed'), autoClose: TOAST_MS });
    close();
  };

  return (
    <Modal opened={opened} onClose={close} title={t('password.title')} centered>
      <form onSubmit={onSubmit(submit)}>
        <Stack>
          <PasswordInput label={t('password.old')} {...field('old')} name="password-old" />
          <PasswordInput label={t('password.new')} {...field('next')} name="password-next" />
          <PasswordInput label={t('password.confirm')} {...field('confirm')} name="password-confirm" />
          <FormActions submitting={submitting} onCancel={close} submitTestId="password-save" />
        </Stack>
      </form>
    </Modal>
  );
}
