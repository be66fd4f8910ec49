import { Badge, Button, Checkbox, Group, PasswordInput, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isWebhookEvent, MAX_WEBHOOK_SECRET, MAX_WEBHOOK_URL, WEBHOOK_EVENTS, type WebhookDeliveryView, type WebhookView } from '../../../protocol/api/integrations.ts';
import { webhookApi } from '../../api/integrations.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { notifications } from '../../layout/toast.ts';
import { formatDateTime } from '../reports/format.ts';
import { FormActions } from '../../components/FormActions.tsx';

const HOOK_SORT: SortValues<WebhookView> = { url: (h) => h.url, createdAt: (h) => h.createdAt };
const DELIVERY_SORT: SortValues<WebhookDeliveryView> = {
  createdAt: (d) => d.createdAt,
  event: (d) => d.event,
  status: (d) => d.status,
  attempts: (d) => d.attempts,
  latency: (d) => d.latencyMs,
};
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
  /** The hooks as last loaded: the delivery filter offers them. */
  const [hooks, setHooks] = useState<readonly WebhookView[]>([]);
  const [hooksReload, setHooksReload] = useState(0);
  const [deliveriesReload, setDeliveriesReload] = useState(0);
  const [filter, setFilter] = useState<string | null>(null);
  const { form, field, onSubmit, submitting } = useConsoleForm<{ url: string; secret: string }>({
    initialValues: { url: '', secret: '' },
    rules: {
      url: [rules.key((v) => (httpUrl(v) ? undefined : 'integrations.hooks.urlRequired')), rules.maxLength(MAX_WEBHOOK_URL)],
      secret: [rules.key((v) => (v ? undefined : 'integrations.hooks.secretRequired')), rules.maxLength(MAX_WEBHOOK_SECRET)],
    },
    serverKeys: { 'webhook.badUrl': 'url' },
  });
  const [events, setEvents] = useState<string[]>(['device.offline']);
  const [eventsError, setEventsError] = useState<string>();
  const [removing, setRemoving] = useState<WebhookView | undefined>();

  // The server answers both lists whole; the tables page and sort them here.
  const loadHooks = useCallback(async (q: ListQuery) => {
    const list = await webhookApi.list();
    setHooks(list);
    return localPage(list, q, HOOK_SORT);
  }, []);
  const loadDeliveries = useCallback(
    async (q: ListQuery) => localPage(await webhookApi.deliveries(filter === null ? undefined : Number(filter)), q, DELIVERY_SORT),
    [filter],
  );
  const refreshHooks = () => setHooksReload((n) => n + 1);
  const refreshDeliveries = () => setDeliveriesReload((n) => n + 1);

  const toast = (message: string) => notifications.show({ color: 'green', message, autoClose: TOAST_MS });
  const eventName = (e: string) => ((WEBHOOK_EVENTS as readonly string[]).includes(e) ? t(`integrations.hooks.eventName.${e.replace('.', '_')}`) : e);

  const hookColumns: DataColumn<WebhookView>[] = [
    { key: 'url', title: t('integrations.hooks.url'), fixed: true, sortable: true, render: (hook) => hook.url },
    { key: 'events', title: t('integrations.hooks.events'), render: (hook) => <Text size="xs">{hook.events.map(eventName).join(', ')}</Text> },
    { key: 'createdAt', title: t('integrations.tokens.created'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (hook) => formatDateTime(hook.createdAt) },
  ];
  const deliveryColumns: DataColumn<WebhookDeliveryView>[] = [
    { key: 'createdAt', title: t('integrations.hooks.time'), fixed: true, sortable: true, style: { whiteSpace: 'nowrap' }, render: (d) => formatDateTime(d.createdAt) },
    { key: 'event', title: t('integrations.hooks.event'), sortable: true, render: (d) => eventName(d.event) },
    {
      key: 'status',
      title: t('integrations.hooks.status'),
      sortable: true,
      render: (d) => (
        <Badge color={STATUS_COLOR[d.status]} title={d.error || undefined}>
          {t(`integrations.hooks.statusName.${d.status}`)}
        </Badge>
      ),
    },
    { key: 'attempts', title: t('integrations.hooks.attempts'), sortable: true, render: (d) => d.attempts },
    { key: 'statusCode', title: t('integrations.hooks.statusCode'), render: (d) => d.statusCode ?? (d.error || '-') },
    { key: 'latency', title: t('integrations.hooks.latency'), sortable: true, render: (d) => (d.latencyMs === null ? '-' : `${d.latencyMs} ms`) },
    { key: 'nextAttempt', title: t('integrations.hooks.nextAttempt'), style: { whiteSpace: 'nowrap' }, render: (d) => (d.status === 'pending' ? formatDateTime(d.nextAttemptAt) : '-') },
  ];

  const add = async (values: { url: string; secret: string }) => {
    if (events.length === 0) return setEventsError(t('integrations.hooks.eventsRequired'));
    await webhookApi.add({ url: values.url.trim(), secret: values.secret, events: events.filter(isWebhookEvent) });
    form.reset();
    toast(t('integrations.hooks.added'));
    refreshHooks();
  };

  const remove = async () => {
    const hook = removing;
    setRemoving(undefined);
    if (!hook) return;
    try {
      await webhookApi.remove(hook.id);
      toast(t('integrations.hooks.removed'));
      if (filter === String(hook.id)) setFilter(null);
      refreshHooks();
      refreshDeliveries();
    } catch {
      // shown by request()
    }
  };

  const redeliver = async (id: number) => {
    try {
      await webhookApi.redeliver(id);
      toast(t('integrations.hooks.redelivered'));
      refreshDeliveries();
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
      <form onSubmit={onSubmit(add)} noValidate>
        <Stack gap="xs" maw={640} mb="lg">
          <TextInput label={t('integrations.hooks.url')} required {...field('url')} placeholder="https://example.com/hook" data-testid="hook-url" />
          <PasswordInput label={t('integrations.hooks.secret')} required {...field('secret')} data-testid="hook-secret" />
          <Checkbox.Group label={t('integrations.hooks.events')} value={events} onChange={(v) => (setEvents(v), setEventsError(undefined))} error={eventsError}>
            <Group mt={4}>
              {WEBHOOK_EVENTS.map((e) => (
                <Checkbox key={e} value={e} label={eventName(e)} />
              ))}
            </Group>
          </Checkbox.Group>
          <FormActions submitting={submitting} submitLabel={t('integrations.hooks.add')} submitTestId="hook-add" align="start" />
        </Stack>
      </form>
      <DataTable<WebhookView, number>
        id="webhooks"
        testId="hook-table"
        columns={hookColumns}
        rowKey={(hook) => hook.id}
        load={loadHooks}
        reload={hooksReload}
        defaultSort="createdAt"
        emptyText={t('integrations.hooks.empty')}
        actions={(hook) => (
          <Button size="compact-xs" color="red" variant="light" onClick={() => setRemoving(hook)}>
            {t('integrations.hooks.remove')}
          </Button>
        )}
      />
      <Group justify="space-between" mb="xs">
        <Title order={4}>{t('integrations.hooks.deliveries')}</Title>
        <Group>
          <Select
            data={[{ value: '', label: t('integrations.hooks.allHooks') }, ...hooks.map((h) => ({ value: String(h.id), label: h.url }))]}
            value={filter ?? ''}
            onChange={(v) => setFilter(v ? v : null)}
            w={260}
            allowDeselect={false}
          />
          <Button variant="default" onClick={refreshDeliveries}>
            {t('integrations.hooks.refresh')}
          </Button>
        </Group>
      </Group>
      <DataTable<WebhookDeliveryView, number>
        id="webhook-deliveries"
        testId="delivery-table"
        columns={deliveryColumns}
        rowKey={(d) => d.id}
        load={loadDeliveries}
        filterKey={filter ?? ''}
        reload={deliveriesReload}
        defaultSort="createdAt"
        emptyText={t('integrations.hooks.noDeliveries')}
        actions={(d) => (
          <Button size="compact-xs" variant="light" onClick={() => void redeliver(d.id)}>
            {t('integrations.hooks.redeliver')}
          </Button>
        )}
      />
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
