import { Alert, Button, Group, Modal, Select, Textarea, TextInput } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { countryLabels } from '../../../protocol/index.ts';
import { deviceApi } from '../../api/devices.ts';
import { type Organization, orgApi } from '../../api/orgs.ts';
import { TOAST_MS } from '../../api/request.ts';
import { currentLanguage } from '../../i18n/index.ts';

/** What an edit dialog is editing: one device from its row, or the selected ones. */
export interface EditTarget {
  readonly kind: 'remark' | 'allocate' | 'country';
  readonly sns: readonly string[];
  /** Current value to start from (one device's remark or country). */
  readonly initial?: string;
}

interface EditProps {
  readonly target: EditTarget | undefined;
  readonly onClose: () => void;
  readonly onSaved: () => void;
}

/** Remark, allocate and set-country, for one device or many; the server checks keys and scope. */
export function DeviceEditDialog({ target, onClose, onSaved }: EditProps) {
  const { t } = useTranslation();
  const title = target ? t(`fleet.action.${target.kind}`) : '';
  return (
    <Modal opened={target !== undefined} onClose={onClose} title={`${title} (${target?.sns.length ?? 0})`} centered>
      {target && <EditForm target={target} onClose={onClose} onSaved={onSaved} />}
    </Modal>
  );
}

// A form per opening (the dialog unmounts it on close), so its state starts from the target each time.
function EditForm({ target, onClose, onSaved }: EditProps & { target: EditTarget }) {
  const { t } = useTranslation();
  const [value, setValue] = useState(target.initial ?? (target.kind === 'country' ? 'domestic' : ''));
  const [orgs, setOrgs] = useState<readonly Organization[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (target.kind === 'allocate') orgApi.list(1, 100).then((p) => setOrgs(p.list), () => undefined);
  }, [target]);

  const save = async () => {
    if (target.kind !== 'remark' && !value) return setError(t('fleet.form.required'));
    setBusy(true);
    try {
      if (target.kind === 'remark') await deviceApi.remark(target.sns, value);
      else if (target.kind === 'allocate') await deviceApi.allocate(target.sns, Number(value));
      else await deviceApi.setCountry(target.sns, value);
      notifications.show({ color: 'green', message: t('fleet.form.saved'), autoClose: TOAST_MS });
      onSaved();
      onClose();
    } catch {
      // The REST client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      {target.kind === 'remark' && <Textarea label={t('fleet.form.remark')} value={value} maxLength={512} autosize minRows={2} onChange={(e) => setValue(e.currentTarget.value)} data-autofocus />}
      {target.kind === 'allocate' && (
        <Select
          label={t('fleet.form.org')}
          searchable
          data={orgs.map((o) => ({ value: String(o.id), label: o.name }))}
          value={value || null}
          onChange={(v) => (setValue(v ?? ''), setError(undefined))}
          error={error}
          comboboxProps={{ withinPortal: true }}
        />
      )}
      {target.kind === 'allocate' && (
        <Alert color="yellow" variant="light" mt="sm" p="xs" data-testid="allocate-offline-note">
          {t('fleet.form.allocateOffline')}
        </Alert>
      )}
      {target.kind === 'country' && (
        <Select
          label={t('fleet.form.country')}
          data={countryLabels.map((c) => ({ value: c.value, label: c[currentLanguage] }))}
          value={value || null}
          onChange={(v) => setValue(v ?? '')}
          allowDeselect={false}
          error={error}
        />
      )}
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onClose}>
          {t('fleet.form.cancel')}
        </Button>
        <Button loading={busy} onClick={() => void save()} data-testid="device-edit-save">
          {t('fleet.form.save')}
        </Button>
      </Group>
    </>
  );
}

interface MessageProps {
  readonly opened: boolean;
  readonly count: number;
  readonly onClose: () => void;
  readonly onSend: (message: { title: string; text: string }) => void;
}

/** The text of a push-text command (65549), for one device or many. */
export function MessageDialog({ opened, count, onClose, onSend }: MessageProps) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={`${t('fleet.action.message')} (${count})`} centered>
      {opened && <MessageForm onClose={onClose} onSend={onSend} />}
    </Modal>
  );
}

function MessageForm({ onClose, onSend }: Pick<MessageProps, 'onClose' | 'onSend'>) {
  const { t } = useTranslation();
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const send = () => {
    if (!text.trim()) return setError(t('fleet.form.required'));
    onSend({ title: title.trim(), text: text.trim() });
    onClose();
  };
  return (
    <>
      <TextInput label={t('fleet.form.messageTitle')} value={title} maxLength={64} onChange={(e) => setTitle(e.currentTarget.value)} />
      <Textarea
        label={t('fleet.form.messageText')}
        required
        value={text}
        maxLength={512}
        autosize
        minRows={3}
        mt="sm"
        error={error}
        onChange={(e) => (setText(e.currentTarget.value), setError(undefined))}
        onBlur={() => !text.trim() && setError(t('fleet.form.required'))}
      />
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onClose}>
          {t('fleet.form.cancel')}
        </Button>
        <Button onClick={send} data-testid="message-send">
          {t('fleet.form.send')}
        </Button>
      </Group>
    </>
  );
}
