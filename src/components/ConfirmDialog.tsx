import { Button, Group, Modal, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

interface Props {
  readonly opened: boolean;
  readonly title: string;
  readonly message: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly danger?: boolean;
  readonly confirmTestId?: string;
}

/** The one confirmation of destructive actions: every such action asks here first. */
export function ConfirmDialog({ opened, title, message, onConfirm, onCancel, danger = false, confirmTestId }: Props) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onCancel} title={title} centered>
      <Text mb="md">{message}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          {t('device.cancel')}
        </Button>
        <Button color={danger ? 'red' : undefined} onClick={onConfirm} data-testid={confirmTestId}>
          {t('device.confirm')}
        </Button>
      </Group>
    </Modal>
  );
}
