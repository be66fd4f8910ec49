import { Button, Group, Modal, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { openPasswordDialog } from '../state/password-dialog.ts';
import { dismissPasswordReminder, reminder } from '../state/remind.ts';

/** The 30-day password reminder: a warning-style confirm offering 'go to modify' or 'cancel'. */
export function Reminders() {
  const { t } = useTranslation();
  const { passwordDue } = useSnapshot(reminder);
  return (
    <Modal opened={passwordDue} onClose={dismissPasswordReminder} title={t('reminder.passwordTitle')} centered>
      <Text mb="md">{t('reminder.password')}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={dismissPasswordReminder}>
          {t('device.cancel')}
        </Button>
        <Button color="yellow" onClick={() => (dismissPasswordReminder(), openPasswordDialog())}>
          {t('reminder.goModify')}
        </Button>
      </Group>
    </Modal>
  );
}
