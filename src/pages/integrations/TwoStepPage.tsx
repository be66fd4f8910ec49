import { Alert, Badge, Button, Code, CopyButton, Divider, Group, Image, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { totpApi } from '../../api/integrations.ts';
import { TOAST_MS } from '../../api/request.ts';
import { notifications } from '../../layout/toast.ts';
import { session } from '../../state/session.ts';
import { qrDataUrl } from './qr.ts';

type Status = Awaited<ReturnType<typeof totpApi.status>>;

/** The caller's two-step verification (TOTP, issue 23): set up with an authenticator app, recovery codes, turn off. */
export function TwoStepPage() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<Status | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [setup, setSetup] = useState<{ secret: string; uri: string } | undefined>();
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState<string[] | undefined>();
  const snap = useSnapshot(session);
  const mayRequire = snap.permissions.includes('org_list');

  const load = useCallback(() => {
    totpApi.status().then(
      (s) => {
        setStatus(s);
        setError(undefined);
      },
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  }, []);
  useEffect(load, [load]);

  const begin = async () => {
    try {
      setSetup(await totpApi.setup());
      setCode('');
    } catch {
      // request() has shown the server's message.
    }
  };

  const confirm = async () => {
    try {
      const { recoveryCodes } = await totpApi.enable(code.trim());
      setRecovery(recoveryCodes);
      setSetup(undefined);
      setCode('');
      notifications.show({ color: 'green', message: t('integrations.twoStep.enabled'), autoClose: TOAST_MS });
      load();
    } catch {
      // shown by request()
    }
  };

  const turnOff = async () => {
    try {
      await totpApi.disable(code.trim());
      setCode('');
      notifications.show({ color: 'green', message: t('integrations.twoStep.disabled'), autoClose: TOAST_MS });
      load();
    } catch {
      // shown by request()
    }
  };

  const setPolicy = async (required: boolean) => {
    if (!snap.user) return;
    try {
      await totpApi.setPolicy(snap.user.orgId, required);
      notifications.show({ color: 'green', message: t(required ? 'integrations.twoStep.policyOn' : 'integrations.twoStep.policyOff'), autoClose: TOAST_MS });
      load();
    } catch {
      // shown by request()
    }
  };

  return (
    <>
      <Title order={3} mb="md">
        {t('integrations.route.twoStep')}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {t('integrations.twoStep.intro')}
      </Text>
      {error && <Alert color="red">{t('integrations.loadFailed', { message: error })}</Alert>}
      {!error && status === undefined && <Text c="dimmed">{t('integrations.loading')}</Text>}
      {status && (
        <Stack maw={640} gap="sm">
          <Group>
            <Badge color={status.enabled ? 'green' : 'gray'} data-testid="two-step-state">
              {status.enabled ? t('integrations.twoStep.on') : t('integrations.twoStep.off')}
            </Badge>
            {status.enabled && <Text size="sm">{t('integrations.twoStep.recoveryLeft', { count: status.recoveryCodesLeft })}</Text>}
          </Group>
          {status.required && !status.enabled && <Alert color="yellow">{t('integrations.twoStep.requiredHint')}</Alert>}
          {recovery && (
            <Alert color="yellow" title={t('integrations.twoStep.recoveryTitle')}>
              <Text size="sm" mb="xs">
                {t('integrations.twoStep.recoveryHint')}
              </Text>
              <Code block data-testid="recovery-codes">
                {recovery.join('\n')}
              </Code>
              <Group mt="xs">
                <CopyButton value={recovery.join('\n')}>
                  {({ copied, copy }) => (
                    <Button size="xs" variant="light" onClick={copy}>
                      {copied ? t('integrations.tokens.copied') : t('integrations.tokens.copy')}
                    </Button>
                  )}
                </CopyButton>
                <Button
                  size="xs"
                  onClick={() => {
                    setRecovery(undefined);
                    // An account its organisation held back holds its keys now: the console loads them afresh.
                    if (status.required) window.location.reload();
                  }}
                  data-testid="recovery-done"
                >
                  {t('integrations.tokens.done')}
                </Button>
              </Group>
            </Alert>
          )}
          {!status.enabled && !setup && (
            <Group>
              <Button onClick={() => void begin()} data-testid="two-step-begin">
                {t('integrations.twoStep.setUp')}
              </Button>
            </Group>
          )}
          {setup && (
            <>
              <Text size="sm">{t('integrations.twoStep.scanHint')}</Text>
              <Image src={qrDataUrl(setup.uri)} alt={t('integrations.twoStep.uri')} w={200} h={200} data-testid="two-step-qr" />
              <Text size="sm" fw={500}>
                {t('integrations.twoStep.secret')}
              </Text>
              <Code data-testid="two-step-secret">{setup.secret}</Code>
              <Text size="sm" fw={500}>
                {t('integrations.twoStep.uri')}
              </Text>
              <Code block>{setup.uri}</Code>
            </>
          )}
          {(setup || status.enabled) && (
            <Group align="flex-end">
              <TextInput
                label={status.enabled ? t('integrations.twoStep.codeOrRecovery') : t('integrations.twoStep.code')}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
                maxLength={32}
                autoComplete="one-time-code"
                w={220}
                data-testid="two-step-code"
              />
              {setup ? (
                <Button onClick={() => void confirm()} disabled={!code.trim()} data-testid="two-step-confirm">
                  {t('integrations.twoStep.confirm')}
                </Button>
              ) : (
                <Button color="red" variant="light" onClick={() => void turnOff()} disabled={!code.trim() || status.required} data-testid="two-step-off">
                  {t('integrations.twoStep.turnOff')}
                </Button>
              )}
            </Group>
          )}
          {mayRequire && snap.user && (
            <>
              <Divider my="sm" />
              <Switch
                label={t('integrations.twoStep.policy', { name: snap.user.orgName })}
                description={t('integrations.twoStep.policyHint')}
                checked={status.required}
                // Turning it on first needs the factor here, so nobody locks their own keys away by mistake.
                disabled={!status.required && !status.enabled}
                onChange={(e) => void setPolicy(e.currentTarget.checked)}
                data-testid="two-step-policy"
              />
            </>
          )}
        </Stack>
      )}
    </>
  );
}
