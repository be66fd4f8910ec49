import { Badge, Box, Button, Group, Modal, NumberInput, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { licenceStatusLabels } from '../../../protocol/index.ts';
import { MAX_TEXT } from '../../../protocol/api/common.ts';
import { MAX_DISTRIBUTE, MAX_GENERATE } from '../../../protocol/api/commerce.ts';
import { commerceApi, type Licence, licenceApi } from '../../api/commerce.ts';
import { TOAST_MS } from '../../api/request.ts';
import { type DataColumn, DataTable, type ListQuery, type Selection } from '../../components/DataTable.tsx';
import { type ConsoleForm, rules, useConsoleForm } from '../../components/use-console-form.ts';
import { formatDateTime } from '../../format/date.ts';
import { label, options } from '../sim/card-labels.ts';
import { FormActions } from '../../components/FormActions.tsx';

const queryOf = (f: { code: string; label: string; status: string | null }) => ({
  ...(f.code.trim() ? { code: f.code.trim() } : {}),
  ...(f.label.trim() ? { label: f.label.trim() } : {}),
  ...(f.status ? { status: f.status } : {}),
});

/** A count of codes to generate or buy: a whole number from 1 to MAX_GENERATE. */
const countRule = rules.key((v) => (/^[1-9][0-9]*$/.test(v.trim()) && Number(v) <= MAX_GENERATE ? undefined : 'cards.licence.countRange'));

/**
 * How many codes to generate or buy: whole numbers up to MAX_GENERATE, never clamped (an out-of-range count
 * stays as typed and countRule says what is wrong, instead of silently becoming 500).
 */
function CodeCountInput({ label, field, onValue, testId }: { label: string; field: ReturnType<ConsoleForm<{ count: string }>['field']>; onValue: (count: string) => void; testId: string }) {
  return <NumberInput label={label} min={1} max={MAX_GENERATE} allowDecimal={false} clampBehavior="none" {...field} onChange={(v) => onValue(String(v))} data-testid={testId} />;
}

/** Licence (ISOBUS activation code) management: list, filters, export, buy, distribute. */
export function LicenceManagePage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState<{ code: string; label: string; status: string | null }>({ code: '', label: '', status: null });
  const [filters, setFilters] = useState(draft);
  const [reload, setReload] = useState(0);
  const [distribute, setDistribute] = useState<{ selection: Selection<number>; clear: () => void }>();
  const distributeForm = useConsoleForm<{ label: string }>({ initialValues: { label: '' }, rules: { label: [rules.required(), rules.maxLength(MAX_TEXT), rules.noEmoji()] } });
  /** Every code seen while paging: which of the chosen ones are unused (only those can be distributed). */
  const [seen] = useState(() => new Map<number, Licence>());
  const [buying, setBuying] = useState(false);
  const buyForm = useConsoleForm<{ count: string }>({ initialValues: { count: '1' }, rules: { count: [countRule] }, serverKeys: { 'order.positiveInteger': 'count' } });
  const [generating, setGenerating] = useState(false);
  const { form, field, onSubmit, submitting } = useConsoleForm<{ count: string; label: string }>({
    initialValues: { count: '10', label: '' },
    rules: { count: [countRule], label: [rules.maxLength(MAX_TEXT), rules.noEmoji()] },
  });
  const [staff, setStaff] = useState(false);
  useEffect(() => {
    commerceApi.paymentMode().then((m) => setStaff(m.staff), () => undefined);
  }, []);
  const generate = async (values: { count: string; label: string }) => {
    const r = await licenceApi.generate(Number(values.count), values.label.trim());
    setGenerating(false);
    notifications.show({ color: 'green', message: t('cards.licence.generated', { count: r.codes.length }), autoClose: TOAST_MS });
    refresh();
  };

  const buyCodes = async ({ count }: { count: string }) => {
    const o = await commerceApi.create({ type: 'iso_bus_activation_code', quantity: Number(count.trim()) }, { silent: true });
    setBuying(false);
    navigate(`/pay-data/index?orderNo=${o.orderNo}&amount=${o.amount}`);
  };

  const query = queryOf(filters);
  const load = useCallback(
    async (q: ListQuery) => {
      const page = await licenceApi.list({ pageNum: q.pageNum, pageSize: q.pageSize, ...queryOf(filters) });
      for (const l of page.list) seen.set(l.id, l);
      return page;
    },
    [filters, seen],
  );
  const refresh = () => setReload((n) => n + 1);

  // The unused codes among the chosen: listed ones as last seen, or every unused code matching the filters.
  const distributable = async (selection: Selection<number>): Promise<number[]> => {
    if (!selection.allMatching) return selection.ids.filter((id) => seen.get(id)?.status === 0);
    if (filters.status !== null && filters.status !== '0') return [];
    const ids: number[] = [];
    for (let pageNum = 1; ; pageNum++) {
      const page = await licenceApi.list({ pageNum, pageSize: 100, ...queryOf({ ...filters, status: '0' }) });
      ids.push(...page.list.map((l) => l.id));
      if (page.list.length < 100 || ids.length >= page.total) return ids;
    }
  };
  const distributeSelected = async ({ label: to }: { label: string }) => {
    if (!distribute) return;
    const { selection, clear } = distribute;
    const ids = await distributable(selection).catch(() => undefined);
    if (!ids) return;
    setDistribute(undefined);
    if (ids.length === 0) {
      notifications.show({ color: 'orange', message: t('cards.licence.noneUnused'), autoClose: TOAST_MS });
      return;
    }
    try {
      for (let i = 0; i < ids.length; i += MAX_DISTRIBUTE) await licenceApi.distribute(ids.slice(i, i + MAX_DISTRIBUTE), to.trim());
      notifications.show({ color: 'green', message: t('cards.licence.distributed', { count: ids.length }), autoClose: TOAST_MS });
    } catch {
      // request() has shown the server's message.
    }
    clear();
    refresh();
  };

  const columns: DataColumn<Licence>[] = [
    {
      key: 'code',
      title: t('cards.licence.code'),
      fixed: true,
      style: { whiteSpace: 'nowrap' },
      render: (l) => (
        <Text size="sm" ff="monospace">
          {l.code}
        </Text>
      ),
    },
    { key: 'label', title: t('cards.licence.label'), render: (l) => l.label },
    {
      key: 'status',
      title: t('cards.licence.status'),
      render: (l) => (
        <Badge variant="light" color={l.status === 1 ? 'green' : l.status === 2 ? 'blue' : 'gray'}>
          {label(licenceStatusLabels, l.status)}
        </Badge>
      ),
    },
    { key: 'deviceSn', title: t('cards.licence.deviceSn'), render: (l) => l.deviceSn },
    { key: 'validity', title: t('cards.licence.validity'), render: (l) => t('cards.licence.years', { count: l.validityYears }) },
    { key: 'expireTime', title: t('cards.licence.expireTime'), style: { whiteSpace: 'nowrap' }, render: (l) => formatDateTime(l.expireTime).slice(0, 10) },
    { key: 'operatedAt', title: t('cards.licence.operatedAt'), style: { whiteSpace: 'nowrap' }, render: (l) => formatDateTime(l.operatedAt) },
  ];

  const exportCsv = () =>
    void licenceApi.exportCsv(query).then((blob) => {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = 'activation-codes.csv';
      a.click();
      URL.revokeObjectURL(a.href);
    }, () => undefined);

  return (
    <Stack>
      <Title order={3}>{t('route.licenseManage')}</Title>
      <Group>
        <TextInput placeholder={t('cards.licence.code')} value={draft.code} onChange={(e) => setDraft({ ...draft, code: e.currentTarget.value })} />
        <TextInput placeholder={t('cards.licence.label')} value={draft.label} onChange={(e) => setDraft({ ...draft, label: e.currentTarget.value })} />
        <Select w={150} placeholder={t('cards.licence.status')} data={options(licenceStatusLabels)} value={draft.status} onChange={(v) => setDraft({ ...draft, status: v })} clearable />
        <Button onClick={() => setFilters(draft)}>{t('cards.search')}</Button>
        <Button variant="light" onClick={exportCsv}>
          {t('cards.licence.export')}
        </Button>
        {staff && (
          <Button variant="light" onClick={() => (form.reset(), setGenerating(true))} data-testid="licence-generate">
            {t('cards.licence.generate')}
          </Button>
        )}
        <Button variant="light" onClick={() => (buyForm.form.reset(), setBuying(true))} data-testid="licence-buy">
          {t('cards.licence.buy')}
        </Button>
      </Group>
      <DataTable<Licence, number>
        id="licences"
        columns={columns}
        rowKey={(l) => l.id}
        rowProps={(l) => ({ 'data-code': l.code })}
        rowLabel={(l) => l.code}
        load={load}
        filterKey={JSON.stringify(filters)}
        reload={reload}
        emptyText={t('cards.licence.empty')}
        toolbar={(selection, clear) => (
          <Button variant="default" size="xs" disabled={selection.count === 0} onClick={() => (distributeForm.form.reset(), setDistribute({ selection, clear }))} data-testid="licence-distribute">
            {t('cards.licence.distribute')}
          </Button>
        )}
      />
      <Modal opened={distribute !== undefined} onClose={() => setDistribute(undefined)} title={t('cards.licence.distribute')} centered>
        <form onSubmit={distributeForm.onSubmit(distributeSelected)} noValidate>
          <Stack>
            <TextInput label={t('cards.licence.distributeTo', { count: distribute?.selection.count ?? 0 })} required {...distributeForm.field('label')} data-testid="licence-distribute-label" />
            <FormActions submitting={distributeForm.submitting} onCancel={() => setDistribute(undefined)} submitTestId="licence-distribute-confirm" />
          </Stack>
        </form>
      </Modal>
      <Modal opened={generating} onClose={() => setGenerating(false)} title={t('cards.licence.generateTitle')} centered>
        <form onSubmit={onSubmit(generate)} noValidate>
          <Stack>
            <CodeCountInput label={t('cards.licence.count')} field={field('count')} onValue={(v) => form.setFieldValue('count', v)} testId="licence-count" />
            <TextInput label={t('cards.licence.generateLabel')} {...field('label')} data-testid="licence-label" />
            <FormActions submitting={submitting} onCancel={() => setGenerating(false)} submitLabel={t('cards.licence.generate')} submitTestId="licence-generate-confirm" />
          </Stack>
        </form>
      </Modal>
      <Modal opened={buying} onClose={() => setBuying(false)} title={t('cards.licence.buy')} centered>
        <form onSubmit={buyForm.onSubmit(buyCodes)} noValidate>
          <Stack>
            <CodeCountInput label={t('cards.licence.count')} field={buyForm.field('count')} onValue={(v) => buyForm.form.setFieldValue('count', v)} testId="licence-buy-count" />
            <FormActions submitting={buyForm.submitting} onCancel={() => setBuying(false)} submitLabel={t('cards.commerce.createOrder')} submitTestId="licence-buy-confirm" />
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}

/** The public /isobus-activate page: a code and the device's serial number activate a licence for 3 years. */
export function IsobusActivatePage() {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [sn, setSn] = useState('');
  const [result, setResult] = useState<string>();
  return (
    <Box maw={480} mx="auto" mt={80}>
      <Paper withBorder p="xl">
        <Stack>
          <Title order={3}>{t('cards.licence.activateTitle')}</Title>
          <TextInput label={t('cards.licence.code')} name="code" placeholder="XXXX-XXXX-XXXX-XXXX" value={code} onChange={(e) => setCode(e.currentTarget.value)} />
          <TextInput label={t('cards.licence.deviceSn')} name="sn" value={sn} onChange={(e) => setSn(e.currentTarget.value)} />
          <Button
            onClick={() => void licenceApi.activate(code, sn).then((r) => setResult(t('cards.licence.activated', { date: formatDateTime(r.expireTime).slice(0, 10) })), () => setResult(undefined))}
            data-testid="licence-activate"
          >
            {t('cards.licence.activate')}
          </Button>
          {result && <Text c="green">{result}</Text>}
        </Stack>
      </Paper>
    </Box>
  );
}
