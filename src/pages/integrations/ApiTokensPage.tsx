import { Alert, Badge, Button, Code, CopyButton, Group, Modal, MultiSelect, NumberInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { permissionCatalogue } from '../../../protocol/index.ts';
import { type ApiTokenView, MAX_TOKEN_NAME } from '../../../protocol/api/integrations.ts';
import { apiTokenApi } from '../../api/integrations.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { notifications } from '../../layout/toast.ts';
import { session } from '../../state/session.ts';
import { formatDateTime } from '../reports/format.ts';
import { FormActions } from '../../components/FormActions.tsx';

const DAY_MS = 86_400_000;
const SORT_BY: SortValues<ApiTokenView> = {
  name: (token) => token.name.toLowerCase(),
  createdAt: (token) => token.createdAt,
  expiresAt: (token) => token.expiresAt,
  lastUsedAt: (token) => token.lastUsedAt,
};

/** When a token made now expires: `days` from now, or never when none are given. */
function expiryOf(days: number | string): number | null {
  return typeof days === 'number' && days > 0 ? Date.now() + days * DAY_MS : null;
}

function stateOf(token: ApiTokenView, now: number): 'active' | 'revoked' | 'expired' {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return 'active';
}

/** The caller's API tokens: create (shown once, with copy), list, revoke (issue 23). */
export function ApiTokensPage() {
  const { t } = useTranslation();
  const snap = useSnapshot(session);
  /** When the list was read: what "expired" is judged against. */
  const [now, setNow] = useState(0);
  const [reload, setReload] = useState(0);
  const { form, field, onSubmit, submitting } = useConsoleForm<{ name: string }>({
    initialValues: { name: '' },
    rules: { name: [rules.key((v) => (v.trim() ? undefined : 'integrations.tokens.nameRequired')), rules.maxLength(MAX_TOKEN_NAME)] },
  });
  const [keys, setKeys] = useState<string[]>([]);
  const [keysError, setKeysError] = useState<string>();
  const [days, setDays] = useState<number | string>('');
  const [created, setCreated] = useState<string | undefined>();
  const [revoking, setRevoking] = useState<ApiTokenView | undefined>();

  // The server answers the caller's tokens whole; the table pages and sorts them here.
  const load = useCallback(async (q: ListQuery) => {
    const list = await apiTokenApi.list();
    setNow(Date.now());
    return localPage(list, q, SORT_BY);
  }, []);
  const refresh = () => setReload((n) => n + 1);

  const held = new Set(snap.permissions);
  const label = (key: string) => {
    const entry = permissionCatalogue.find((e) => e.key === key);
    return entry ? `${currentLanguage === 'zh' ? entry.zh : entry.en} (${key})` : key;
  };
  const columns: DataColumn<ApiTokenView>[] = [
    { key: 'name', title: t('integrations.tokens.name'), fixed: true, sortable: true, render: (token) => token.name },
    { key: 'keys', title: t('integrations.tokens.keys'), render: (token) => <Text size="xs">{token.keys.map(label).join(', ')}</Text> },
    { key: 'createdAt', title: t('integrations.tokens.created'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (token) => formatDateTime(token.createdAt) },
    {
      key: 'expiresAt',
      title: t('integrations.tokens.expires'),
      sortable: true,
      style: { whiteSpace: 'nowrap' },
      render: (token) => (token.expiresAt === null ? t('integrations.tokens.never') : formatDateTime(token.expiresAt)),
    },
    {
      key: 'lastUsedAt',
      title: t('integrations.tokens.lastUsed'),
      sortable: true,
      style: { whiteSpace: 'nowrap' },
      render: (token) => (token.lastUsedAt === null ? t('integrations.tokens.notUsed') : formatDateTime(token.lastUsedAt)),
    },
    {
      key: 'state',
      title: t('integrations.tokens.state'),
      render: (token) => {
        const state = stateOf(token, now);
        return <Badge color={state === 'active' ? 'green' : 'gray'}>{t(`integrations.tokens.${state}`)}</Badge>;
      },
    },
  ];
  const options = permissionCatalogue.filter((e) => held.has(e.key)).map((e) => ({ value: e.key, label: label(e.key) }));

  const create = async (values: { name: string }) => {
    if (keys.length === 0) return setKeysError(t('integrations.tokens.keysRequired'));
    const answer = await apiTokenApi.create({ name: values.name.trim(), keys, expiresAt: expiryOf(days) });
    setCreated(answer.token);
    form.reset();
    setKeys([]);
    setDays('');
    refresh();
  };

  const revoke = async () => {
    const token = revoking;
    setRevoking(undefined);
    if (!token) return;
    try {
      await apiTokenApi.revoke(token.id);
      notifications.show({ color: 'green', message: t('integrations.tokens.revokedDone'), autoClose: TOAST_MS });
      refresh();
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
      <form onSubmit={onSubmit(create)} noValidate>
        <Stack gap="xs" maw={640} mb="lg">
          <TextInput label={t('integrations.tokens.name')} required {...field('name')} data-testid="token-name" />
          <MultiSelect
            label={t('integrations.tokens.keys')}
            description={t('integrations.tokens.keysHint')}
            required
            data={options}
            value={keys}
            onChange={(v) => (setKeys(v), setKeysError(undefined))}
            error={keysError}
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
          <FormActions submitting={submitting} submitLabel={t('integrations.tokens.create')} submitTestId="token-create" align="start" />
        </Stack>
      </form>
      <DataTable<ApiTokenView, number>
        id="api-tokens"
        testId="token-table"
        columns={columns}
        rowKey={(token) => token.id}
        load={load}
        reload={reload}
        defaultSort="createdAt"
        emptyText={t('integrations.tokens.empty')}
        actions={(token) =>
          stateOf(token, now) === 'active' && (
            <Button size="compact-xs" color="red" variant="light" onClick={() => setRevoking(token)}>
              {t('integrations.tokens.revoke')}
            </Button>
          )
        }
      />
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
