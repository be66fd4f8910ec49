import { Alert, Badge, Button, Code, CopyButton, Group, Modal, MultiSelect, NumberInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { permissionCatalogue } from '../../../protocol/index.ts';
import type { ApiTokenView } from '../../../protocol/api/integrations.ts';
import { apiTokenApi } from '../../api/integrations.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { currentLanguage } from '../../i18n/index.ts';
import { notifications } from '../../layout/toast.ts';
import { session } from '../../state/session.ts';
import { formatDateTime } from '../reports/format.ts';

const DAY_MS = 86_400_000;

function stateOf(token: ApiTokenView, now: number): 'active' | 'revoked' | 'expired' {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return 'active';
}

/** The caller's API tokens: create (shown once, with copy), list, revoke (issue 23). */
export function ApiTokensPage() {
  const { t } = useTranslation();
  const snap = useSnapshot(session);
  const [tokens, setTokens] = useState<ApiTokenView[] | undefined>();
  /** When the list was read: what "expired" is judged against. */
  const [now, setNow] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [name, setName] = useState('');
  const [keys, setKeys] = useState<string[]>([]);
  const [days, setDays] = useState<number | string>('');
  const [formError, setFormError] = useState<string | undefined>();
  const [created, setCreated] = useState<string | undefined>();
  const [revoking, setRevoking] = useState<ApiTokenView | undefined>();

  const load = useCallback(() => {
    apiTokenApi.list().then(
      (list) => {
        setTokens(list);
        setNow(Date.now());
        setError(undefined);
      },
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  }, []);
  useEffect(load, [load]);

  const held = new Set(snap.permissions);
  const label = (key: string) => {
    const entry = permissionCatalogue.find((e) => e.key === key);
    return entry ? `${currentLanguage === 'zh' ? entry.zh : entry.en} (${key})` : key;
  };
  const options = permissionCatalogue.filter((e) => held.has(e.key)).map((e) => ({ value: e.key, label: label(e.key) }));

  const create = async () => {
    if (!name.trim()) return setFormError(t('integrations.tokens.nameRequired'));
    if (keys.length === 0) return setFormError(t('integrations.tokens.keysRequired'));
    setFormError(undefined);
    const expiresAt = typeof days === 'number' && days > 0 ? Date.now() + days * DAY_MS : null;
    try {
      const answer = await apiTokenApi.create({ name: name.trim(), keys, expiresAt });
      setCreated(answer.token);
      setName('');
      setKeys([]);
      setDays('');
      load();
    } catch {
      // request() has shown the server's message.
    }
  };

  const revoke = async () => {
    const token = revoking;
    setRevoking(undefined);
    if (!token) return;
    try {
      await apiTokenApi.revoke(token.id);
      notifications.show({ color: 'green', message: t('integrations.tokens.revokedDone'), autoClose: TOAST_MS });
      load();
    } catch {
      // shown by request()
    }
  };

  return (
    <>
      <Title order={3} mb="md">
        {t('integrations.route.apiTokens')}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {t('integrations.tokens.intro')}
      </Text>
      <Stack gap="xs" maw={640} mb="lg">
        <TextInput label={t('integrations.tokens.name')} value={name} maxLength={64} onChange={(e) => setName(e.currentTarget.value)} data-testid="token-name" />
        <MultiSelect
          label={t('integrations.tokens.keys')}
          description={t('integrations.tokens.keysHint')}
          data={options}
          value={keys}
          onChange={setKeys}
          searchable
          data-testid="token-keys"
        />
        <NumberInput
          label={t('integrations.tokens.expiresInDays')}
          description={t('integrations.tokens.expiresHint')}
          value={days}
          onChange={setDays}
          min={1}
          max={3650}
          allowDecimal={false}
          w={220}
        />
        {formError && (
          <Text c="red" size="sm">
            {formError}
          </Text>
        )}
        <Group>
          <Button onClick={() => void create()} data-testid="token-create">
            {t('integrations.tokens.create')}
          </Button>
        </Group>
      </Stack>
      {error && <Alert color="red">{t('integrations.loadFailed', { message: error })}</Alert>}
      {!error && tokens === undefined && <Text c="dimmed">{t('integrations.loading')}</Text>}
      {tokens?.length === 0 && <Text c="dimmed">{t('integrations.tokens.empty')}</Text>}
      {tokens && tokens.length > 0 && (
        <Table highlightOnHover data-testid="token-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('integrations.tokens.name')}</Table.Th>
              <Table.Th>{t('integrations.tokens.keys')}</Table.Th>
              <Table.Th>{t('integrations.tokens.created')}</Table.Th>
              <Table.Th>{t('integrations.tokens.expires')}</Table.Th>
              <Table.Th>{t('integrations.tokens.lastUsed')}</Table.Th>
              <Table.Th>{t('integrations.tokens.state')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.map((token) => {
              const state = stateOf(token, now);
              return (
                <Table.Tr key={token.id}>
                  <Table.Td>{token.name}</Table.Td>
                  <Table.Td>
                    <Text size="xs">{token.keys.map(label).join(', ')}</Text>
                  </Table.Td>
                  <Table.Td>{formatDateTime(token.createdAt)}</Table.Td>
                  <Table.Td>{token.expiresAt === null ? t('integrations.tokens.never') : formatDateTime(token.expiresAt)}</Table.Td>
                  <Table.Td>{token.lastUsedAt === null ? t('integrations.tokens.notUsed') : formatDateTime(token.lastUsedAt)}</Table.Td>
                  <Table.Td>
                    <Badge color={state === 'active' ? 'green' : 'gray'}>{t(`integrations.tokens.${state}`)}</Badge>
                  </Table.Td>
                  <Table.Td>
                    {state === 'active' && (
                      <Button size="xs" color="red" variant="light" onClick={() => setRevoking(token)}>
                        {t('integrations.tokens.revoke')}
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <Modal opened={created !== undefined} onClose={() => setCreated(undefined)} title={t('integrations.tokens.createdTitle')} centered size="lg">
        <Alert color="yellow" mb="sm">
          {t('integrations.tokens.createdHint')}
        </Alert>
        <Code block data-testid="token-value">
          {created}
        </Code>
        <Group justify="flex-end" mt="md">
          <CopyButton value={created ?? ''}>
            {({ copied, copy }) => (
              <Button variant="light" onClick={copy}>
                {copied ? t('integrations.tokens.copied') : t('integrations.tokens.copy')}
              </Button>
            )}
          </CopyButton>
          <Button onClick={() => setCreated(undefined)}>{t('integrations.tokens.done')}</Button>
        </Group>
      </Modal>
      <ConfirmDialog
        opened={revoking !== undefined}
        title={t('integrations.tokens.revoke')}
        message={t('integrations.tokens.revokeConfirm', { name: revoking?.name ?? '' })}
        onConfirm={() => void revoke()}
        onCancel={() => setRevoking(undefined)}
        danger
      />
    </>
  );
}
