import { Button, Group, NumberInput, Switch } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/ConfirmDialog.tsx';

/** What 65575 (change SSH config) sets on the device. */
export interface SshConfig {
  readonly enabled: boolean;
  readonly port: number;
}

/**
 * SSH debug: the device's SSH switch and port, applied after a confirmation (opening or moving a
 * device's SSH port changes who can reach it). `apply` sends the command; the remote tab and the list's
 * SSH action both pass the device view's guarded sender.
 */
export function SshConfigForm({ sn, apply }: { sn: string; apply: (config: SshConfig) => void }) {
  const { t } = useTranslation();
  const [ssh, setSsh] = useState<SshConfig>({ enabled: false, port: 22 });
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <Group align="end">
        <Switch label={t('deviceView.remote.sshEnabled')} checked={ssh.enabled} onChange={(e) => setSsh({ ...ssh, enabled: e.currentTarget.checked })} />
        <NumberInput w={120} label={t('deviceView.remote.sshPort')} min={1} max={65535} value={ssh.port} onChange={(v) => setSsh({ ...ssh, port: Number(v) || 22 })} />
        <Button size="xs" onClick={() => setConfirming(true)} data-testid="ssh-apply">
          {t('deviceView.remote.apply')}
        </Button>
      </Group>
      <ConfirmDialog
        opened={confirming}
        title={t('deviceView.remote.ssh')}
        message={t(ssh.enabled ? 'deviceView.remote.sshConfirmOn' : 'deviceView.remote.sshConfirmOff', { sn, port: ssh.port })}
        danger
        onConfirm={() => {
          setConfirming(false);
          apply(ssh);
        }}
        onCancel={() => setConfirming(false)}
        confirmTestId="confirm-ssh"
      />
    </>
  );
}
