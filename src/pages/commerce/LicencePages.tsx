import { Badge, Box, Button, Checkbox, Group, Modal, NumberInput, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { licenceStatusLabels } from '../../../protocol/index.ts';
import { commerceApi, type Licence, licenceApi } from '../../api/commerce.ts';
import type { Page } from '../../api/devices.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from '../../format/date.ts';
import { label, options } from '../sim/card-labels.ts';

const queryOf = (f: { code: string; label: string; status: string | null }) => ({
  ...(f.code.trim() ? { code: f.code.trim() } : {}),
  ...(f.label.trim() ? { label: f.label.trim() } : {}),
  ...(f.status ? { status: f.status } : {}),
});

/** Licence (ISOBUS activation code) management: list, filters, export, buy, distribute. */
export function LicenceManagePage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const [draft, setDraft] = useState<{ code: string; label: string; status: string | null }>({ code: '', label: '', status: null });
  const [filters, setFilters] = useState(draft);
  const [page, setPage] = useState<Page<Licence>>();
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [distribute, setDistribute] = useState<string>();
  const [buy, setBuy] = useState<number>();
  const [generating, setGenerating] = useState<{ count: number | string; label: string; error?: string }>();
  const [staff, setStaff] = useState(false);
  useEffect(() => {
    commerceApi.paymentMode().then((m) => setStaff(m.staff), () => undefined);
  }, []);
  const countError = (v: number | string) => (Number.isInteger(Number(v)) && v !== '' && Number(v) >= 1 && Number(v) <= 500 ? undefined : t('cards.licence.countRange'));
  const generate = () => {
    if (!generating) return;
    const error = countError(generating.count);
    if (error) return setGenerating({ ...generating, error });
    void licenceApi.generate(Number(generating.count), generating.label.trim()).then((r) => {
      setGenerating(undefined);
      notifications.show({ color: 'green', message: t('cards.licence.generated', { count: r.codes.length }), autoClose: TOAST_MS });
      load();
    }, () => undefined);
  };

  const query = queryOf(filters);
  const load = useCallback(() => {
    licenceApi.list({ pageNum, pageSize, ...queryOf(filters) }).then((p) => (setPage(p), setSelected(new Set())), () => undefined);
  }, [pageNum, pageSize, filters]);
  useEffect(load, [load]);

  const exportCsv = () =>
    void licenceApi.exportCsv(query).then((blob) => {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = 'activation-codes.csv';
      a.click();
      URL.revokeObjectURL(a.href);
    }, () => undefined);

  const toggle = (id: number) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Stack>
      <Title order={3}>{t('route.licenseManage')}</Title>
      <Group>
        <TextInput placeholder={t('cards.licence.code')} value={draft.code} onChange={(e) => setDraft({ ...draft, code: e.currentTarget.value })} />
        <TextInput placeholder={t('cards.licence.label')} value={draft.label} onChange={(e) => setDraft({ ...draft, label: e.currentTarget.value })} />
        <Select w={150} placeholder={t('cards.licence.status')} data={options(licenceStatusLabels)} value={draft.status} onChange={(v) => setDraft({ ...draft, status: v })} clearable />
        <Button onClick={() => (setPageNum(1), setFilters(draft))}>{t('cards.search')}</Button>
        <Button variant="light" onClick={exportCsv}>
          {t('cards.licence.export')}
        </Button>
        {staff && (
          <Button variant="light" onClick={() => setGenerating({ count: 10, label: '' })} data-testid="licence-generate">
            {t('cards.licence.generate')}
          </Button>
        )}
        <Button variant="light" onClick={() => setBuy(1)}>
          {t('cards.licence.buy')}
        </Button>
        <Button variant="default" disabled={selected.size === 0} onClick={() => setDistribute('')}>
          {t('cards.licence.distribute')}
        </Button>
      </Group>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th>{t('cards.licence.code')}</Table.Th>
            <Table.Th>{t('cards.licence.label')}</Table.Th>
            <Table.Th>{t('cards.licence.status')}</Table.Th>
            <Table.Th>{t('cards.licence.deviceSn')}</Table.Th>
            <Table.Th>{t('cards.licence.validity')}</Table.Th>
            <Table.Th>{t('cards.licence.expireTime')}</Table.Th>
            <Table.Th>{t('cards.licence.operatedAt')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((l) => (
            <Table.Tr key={l.id} data-code={l.code}>
              <Table.Td>{l.status === 0 && <Checkbox checked={selected.has(l.id)} onChange={() => toggle(l.id)} aria-label={l.code} />}</Table.Td>
              <Table.Td ff="monospace">{l.code}</Table.Td>
              <Table.Td>{l.label}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={l.status === 1 ? 'green' : l.status === 2 ? 'blue' : 'gray'}>
                  {label(licenceStatusLabels, l.status)}
                </Badge>
              </Table.Td>
              <Table.Td>{l.deviceSn}</Table.Td>
              <Table.Td>{t('cards.licence.years', { count: l.validityYears })}</Table.Td>
              <Table.Td>{formatDateTime(l.expireTime).slice(0, 10)}</Table.Td>
              <Table.Td>{formatDateTime(l.operatedAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter
        shown={page?.list.length}
        total={page?.total}
        emptyText={t('cards.licence.empty')}
        {...paging.footer}
      />
      <Modal opened={distribute !== undefined} onClose={() => setDistribute(undefined)} title={t('cards.licence.distribute')} centered>
        <Stack>
          <TextInput label={t('cards.licence.distributeTo', { count: selected.size })} value={distribute ?? ''} onChange={(e) => setDistribute(e.currentTarget.value)} />
          <Button
            onClick={() =>
              void licenceApi.distribute([...selected], distribute ?? '').then(() => {
                setDistribute(undefined);
                notifications.show({ color: 'green', message: t('cards.done'), autoClose: TOAST_MS });
                load();
              }, () => undefined)
            }
          >
            {t('device.confirm')}
          </Button>
        </Stack>
      </Modal>
      <Modal opened={generating !== undefined} onClose={() => setGenerating(undefined)} title={t('cards.licence.generateTitle')} centered>
        {generating && (
          <Stack>
            <NumberInput
              label={t('cards.licence.count')}
              min={1}
              max={500}
              allowDecimal={false}
              clampBehavior="none"
              value={generating.count}
              error={generating.error}
              onChange={(v) => setGenerating({ ...generating, count: v, error: undefined })}
              onBlur={() => setGenerating({ ...generating, error: countError(generating.count) })}
              data-testid="licence-count"
            />
            <TextInput label={t('cards.licence.generateLabel')} maxLength={128} value={generating.label} onChange={(e) => setGenerating({ ...generating, label: e.currentTarget.value })} data-testid="licence-label" />
            <Button onClick={generate} data-testid="licence-generate-confirm">
              {t('cards.licence.generate')}
            </Button>
          </Stack>
        )}
      </Modal>
      <Modal opened={buy !== undefined} onClose={() => setBuy(undefined)} title={t('cards.licence.buy')} centered>
        <Stack>
          <NumberInput label={t('cards.licence.count')} min={1} max={500} value={buy} onChange={(v) => setBuy(Number(v) || 1)} />
          <Button
            onClick={() =>
              void commerceApi.create({ type: 'iso_bus_activation_code', quantity: buy ?? 1 }).then((o) => navigate(`/pay-data/index?orderNo=${o.orderNo}&amount=${o.amount}`), () => undefined)
            }
          >
            {t('cards.commerce.createOrder')}
          </Button>
        </Stack>
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
