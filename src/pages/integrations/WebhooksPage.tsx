import { Alert, Badge, Button, Checkbox, Group, PasswordInput, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { WEBHOOK_EVENTS, type WebhookDeliveryView, type WebhookEvent, type WebhookView } from '../../../protocol/api/integrations.ts';
import { webhookApi } from '../../api/integrations.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { notifications } from '../../layout/toast.ts';
import { formatDateTime } from '../reports/format.ts';

const STATUS_COLOR = { pending: 'yellow', delivered: 'green', failed: 'red' } as const;

function httpUrl(text: string): boolean {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The organisation's webhooks and their delivery log (webhook_manage, issue 23). */
export function WebhooksPage() {
  const { t } = useTranslation();
  const [hooks, setHooks] = useState<WebhookView[] | undefined>();
  const [deliveries, setDeliveries] = useState<WebhookDeliveryView[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [filter, setFilter] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState<string[]>(['device.offline']);
  const [formError, setFormError] = useState<string | undefined>();
  const [removing, setRemoving] = useState<WebhookView | undefined>();

  const failed = (err: unknown) => setError(err instanceof Error ? err.message : String(err));
  const loadHooks = useCallback(() => {
    webhookApi.list().then((list) => {
      setHooks(list);
      setError(undefined);
    }, failed);
  }, []);
  const loadDeliveries = useCallback(() => {
    webhookApi.deliveries(filter === null ? undefined : Number(filter)).then(setDeliveries, failed);
  }, [filter]);
  useEffect(loadHooks, [loadHooks]);
  useEffect(loadDeliveries, [loadDeliveries]);

  const toast = (message: string) => notifications.show({ color: 'green', message, autoClose: TOAST_MS });
  const eventName = (e: string) => ((WEBHOOK_EVENTS as readonly string[]).includes(e) ? t(`integrations.hooks.eventName.${e.replace('.', '_')}`) : e);

  const add = async () => {
    if (!httpUrl(url)) return setFormError(t('integrations.hooks.urlRequired'));
    if (!secret) return setFormError(t('integrations.hooks.secretRequired'));
    if (events.length === 0) return setFormError(t('integrations.hooks.eventsRequired'));
    setFormError(undefined);
    try {
      await webhookApi.add({ url: url.trim(), secret, events: events as WebhookEvent[] });
      setUrl('');
      setSecret('');
      toast(t('integrations.hooks.added'));
      loadHooks();
    } catch {
      // request() has shown the server's message.
    }
  };

  const remove = async () => {
    const hook = removing;
    setRemoving(undefined);
    if (!hook) return;
    try {
      await webhookApi.remove(hook.id);
      toast(t('integrations.hooks.removed'));
      if (filter === String(hook.id)) setFilter(null);
      loadHooks();
      loadDeliveries();
    } catch {
      // shown by request()
    }
  };

  const redeliver = async (id: number) => {
    try {
      await webhookApi.redeliver(id);
      toast(t('integrations.hooks.redelivered'));
      loadDeliveries();
    } catch {
      // shown by request()
    }
  };

  return (
    <>
      <Title order={3} mb="md">
        {t('integrations.route.webhooks')}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {t('integrations.hooks.intro')}
      </Text>
      <Stack gap="xs" maw={640} mb="lg">
        <TextInput label={t('integrations.hooks.url')} value={url} onChange={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/hook" data-testid="hook-url" />
        <PasswordInput label={t('integrations.hooks.secret')} value={secret} maxLength={256} onChange={(e) => setSecret(e.currentTarget.value)} data-testid="hook-secret" />
        <Checkbox.Group label={t('integrations.hooks.events')} value={events} onChange={setEvents}>
          <Group mt={4}>
            {WEBHOOK_EVENTS.map((e) => (
              <Checkbox key={e} value={e} label={eventName(e)} />
            ))}
          </Group>
        </Checkbox.Group>
        {formError && (
          <Text c="red" size="sm">
            {formError}
          </Text>
        )}
        <Group>
          <Button onClick={() => void add()} data-testid="hook-add">
            {t('integrations.hooks.add')}
          </Button>
        </Group>
      </Stack>
      {error && <Alert color="red">{t('integrations.loadFailed', { message: error })}</Alert>}
      {!error && hooks === undefined && <Text c="dimmed">{t('integrations.loading')}</Text>}
      {hooks?.length === 0 && <Text c="dimmed">{t('integrations.hooks.empty')}</Text>}
      {hooks && hooks.length > 0 && (
        <Table highlightOnHover mb="lg" data-testid="hook-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('integrations.hooks.url')}</Table.Th>
              <Table.Th>{t('integrations.hooks.events')}</Table.Th>
              <Table.Th>{t('integrations.tokens.created')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {hooks.map((hook) => (
              <Table.Tr key={hook.id}>
                <Table.Td>{hook.url}</Table.Td>
                <Table.Td>
                  <Text size="xs">{hook.events.map(eventName).join(', ')}</Text>
                </Table.Td>
                <Table.Td>{formatDateTime(hook.createdAt)}</Table.Td>
                <Table.Td>
                  <Button size="xs" color="red" variant="light" onClick={() => setRemoving(hook)}>
                    {t('integrations.hooks.remove')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Group justify="space-between" mb="xs">
        <Title order={4}>{t('integrations.hooks.deliveries')}</Title>
        <Group>
          <Select
            data={[{ value: '', label: t('integrations.hooks.allHooks') }, ...(hooks ?? []).map((h) => ({ value: String(h.id), label: h.url }))]}
            value={filter ?? ''}
            onChange={(v) => setFilter(v ? v : null)}
            w={260}
            allowDeselect={false}
          />
          <Button variant="default" onClick={loadDeliveries}>
            {t('integrations.hooks.refresh')}
          </Button>
        </Group>
      </Group>
      {deliveries?.length === 0 && <Text c="dimmed">{t('integrations.hooks.noDeliveries')}</Text>}
      {deliveries && deliveries.length > 0 && (
        <Table highlightOnHover data-testid="delivery-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('integrations.hooks.time')}</Table.Th>
              <Table.Th>{t('integrations.hooks.event')}</Table.Th>
              <Table.Th>{t('integrations.hooks.status')}</Table.Th>
              <Table.Th>{t('integrations.hooks.attempts')}</Table.Th>
              <Table.Th>{t('integrations.hooks.statusCode')}</Table.Th>
              <Table.Th>{t('integrations.hooks.latency')}</Table.Th>
              <Table.Th>{t('integrations.hooks.nextAttempt')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {deliveries.map((d) => (
              <Table.Tr key={d.id}>
                <Table.Td>{formatDateTime(d.createdAt)}</Table.Td>
                <Table.Td>{eventName(d.event)}</Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLOR[d.status]} title={d.error || undefined}>
                    {t(`integrations.hooks.statusName.${d.status}`)}
                  </Badge>
                </Table.Td>
                <Table.Td>{d.attempts}</Table.Td>
                <Table.Td>{d.statusCode ?? (d.error || '-')}</Table.Td>
                <Table.Td>{d.latencyMs === null ? '-' : `${d.latencyMs} ms`}</Table.Td>
                <Table.Td>{d.status === 'pending' ? formatDateTime(d.nextAttemptAt) : '-'}</Table.Td>
                <Table.Td>
                  <Button size="xs" variant="light" onClick={() => void redeliver(d.id)}>
                    {t('integrations.hooks.redeliver')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <ConfirmDialog
        opened={removing !== undefined}
        title={t('integrations.hooks.remove')}
        message={t('integrations.hooks.removeConfirm', { url: removing?.url ?? '' })}
        onConfirm={() => void remove()}
        onCancel={() => setRemoving(undefined)}
        danger
      />
    </>
  );
}
