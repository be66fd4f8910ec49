import '@xterm/xterm/css/xterm.css';
import { Alert, Box, Button, Group } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { endShell, shellSelection, showShell, shellViews } from './shell-sessions.ts';

/**
 * A device's shell in xterm. The session lives in shell-sessions.ts, keyed by SN, so the shell tab and
 * the web shell page show the same one and leaving the view does not end it.
 */
export function ShellTerminal({ sn, height = 420 }: { readonly sn: string; readonly height?: number | string }) {
  const { t } = useTranslation();
  const host = useRef<HTMLDivElement>(null);
  const views = useSnapshot(shellViews);
  const view = views[sn];
  const status = view?.status ?? 'connecting';
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    return showShell(sn, el);
  }, [sn]);

  const copy = () => {
    void navigator.clipboard?.writeText(shellSelection(sn)).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };

  return (
    <Box>
      {status === 'disconnected' && (
        <Alert color="orange" mb="xs" data-testid="shell-disconnected">
          {t('deviceView.shell.disconnected')}
        </Alert>
      )}
      {status === 'device-offline' && (
        <Alert color="yellow" mb="xs" data-testid="shell-device-offline">
          {t('deviceView.shell.deviceOffline')}
        </Alert>
      )}
      {status === 'no-info' && (
        <Alert color="red" mb="xs" data-testid="shell-no-info">
          {t('deviceView.shell.noInfo')}
          {view?.detail ? `: ${view.detail}` : ''}
        </Alert>
      )}
      <Group mb="xs" justify="flex-end" gap="xs">
        <Button size="compact-xs" variant="light" onClick={copy}>
          {copied ? t('deviceView.shell.copied') : t('deviceView.shell.copy')}
        </Button>
        <Button size="compact-xs" variant="light" color="red" disabled={status !== 'open'} onClick={() => endShell(sn)} data-testid="shell-close">
          {t('deviceView.shell.close')}
        </Button>
      </Group>
      <Box ref={host} data-testid="shell-terminal" data-status={status} style={{ height, background: '#1e1e1e', padding: 4 }} />
    </Box>
  );
}
