import { Badge, Button, Card as Panel, Group, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { type CardDetail, cardsApi, type DiagnosisReport, formatBytes } from '../../api/cards.ts';
import { RequestError } from '../../api/request.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { BindGroupDialog, isDirectional } from './BindGroupDialog.tsx';
import { formatDateTime } from '../../format/date.ts';
import { carrierOf, comboOf, eventStatusOf, formFactorOf, realStatusOf, reasonOf, statusOf } from './card-labels.ts';

function Field({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div data-testid={testId}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm">{value || '-'}</Text>
    </div>
  );
}

/** A status change of the card, numbered in the order the server listed it (it has no id). */
type NumberedEvent = CardDetail['events'][number] & { readonly n: number };
const HISTORY_SORT: SortValues<NumberedEvent> = { at: (e) => e.at };

/** One card's facts as the carrier last reported them, and its status history with reasons. */
export function SimCardViewPage() {
  const { t } = useTranslation();
  const iccid = new URLSearchParams(useSearch()).get('iccid') ?? '';
  const [card, setCard] = useState<CardDetail>();
  const [binding, setBinding] = useState(false);
  const load = useCallback(() => {
    if (iccid) cardsApi.detail(iccid).then(setCard, () => undefined);
  }, [iccid]);
  useEffect(load, [load]);
  // The history comes with the card; the table sorts and pages it here.
  const loadHistory = useCallback(async (q: ListQuery) => localPage((card?.events ?? []).map((e, n) => ({ ...e, n })), q, HISTORY_SORT), [card]);
  if (!card) return <Text c="dimmed">{iccid ? '' : t('cards.notFound')}</Text>;
  const family = card.family;
  const historyColumns: DataColumn<NumberedEvent>[] = [
    { key: 'at', title: t('cards.time'), fixed: true, sortable: true, style: { whiteSpace: 'nowrap' }, render: (e) => formatDateTime(e.at) },
    { key: 'from', title: t('cards.from'), render: (e) => eventStatusOf(family, e.fromStatus) },
    { key: 'to', title: t('cards.to'), render: (e) => eventStatusOf(family, e.toStatus) },
    { key: 'reason', title: t('cards.reason'), render: (e) => reasonOf(e.reason) },
    { key: 'by', title: t('cards.by'), render: (e) => e.account || t('cards.carrierSide') },
  ];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>
          {card.iccid} <Badge variant="light" data-testid="detail-status">{statusOf(card)}</Badge>
        </Title>
        <Group gap="xs">
          {card.family === 'link' && isDirectional(card.comboType) && (
            <Button variant="default" onClick={() => setBinding(true)} data-testid="detail-bind-group">
              {t('cards.bindGroup')}
            </Button>
          )}
          <Button component={Link} href={`/sim-card-management/intelligent-test?iccid=${card.iccid}`} variant="light">
            {t('cards.test')}
          </Button>
        </Group>
      </Group>
      {binding && <BindGroupDialog iccid={card.iccid} groupId={card.groupId} onClose={() => setBinding(false)} onBound={load} />}
      <Panel withBorder>
        <SimpleGrid cols={4}>
          <Field label={t('cards.msisdn')} value={card.msisdn} />
          <Field label={t('cards.imsi')} value={card.imsi} />
          <Field label={t('cards.carrier')} value={carrierOf(card)} />
          <Field label={t('cards.cardType')} value={t(`cards.cardTypeName.${card.cardType}`)} />
          <Field label={t('cards.status')} value={statusOf(card)} />
          <Field label={t('cards.realStatus')} value={realStatusOf(card)} />
          <Field label={t('cards.reason')} value={reasonOf(card.statusReason)} />
          <Field label={t('cards.changedAt')} value={formatDateTime(card.statusChangedAt)} />
          <Field label={t('cards.comboType')} value={comboOf(card)} />
          <Field label={t('cards.usage')} value={`${formatBytes(card.usedBytes)} / ${formatBytes(card.quotaBytes)}`} />
          <Field label={t('cards.expiry')} value={formatDateTime(card.expireTime)} />
          <Field label={t('cards.apn')} value={card.apn} />
          <Field label={t('cards.certificationLabel')} value={t(`cards.certification.${card.certification}`)} />
          <Field label={t('cards.formFactor')} value={formFactorOf(card)} />
          <Field label={t('cards.group')} value={card.groupName} testId="detail-group" />
          <Field label={t('cards.model')} value={card.model} />
          <Field label={t('cards.deviceSn')} value={card.deviceSn} />
          <Field label={t('cards.activatedAt')} value={formatDateTime(card.activatedAt)} />
        </SimpleGrid>
      </Panel>
      <Title order={4}>{t('cards.history')}</Title>
      <DataTable<NumberedEvent, number>
        id="card-history"
        columns={historyColumns}
        rowKey={(e) => e.n}
        load={loadHistory}
        defaultSort="at"
      />
    </Stack>
  );
}

type Check = DiagnosisReport['checks'][number];

/** One check's detail in the console's language, from the values the server gave (bytes in 1024 units, dates formatted). */
function checkDetail(t: TFunction, c: Check): string {
  const f = c.facts;
  if (!f) return c.detail;
  switch (c.code) {
    case 'registration':
      return f.signalDbm === undefined ? t('cards.diag.notRegistered') : t('cards.diag.registered', { signal: f.signalDbm });
    case 'dataSession':
      return t(c.passed ? 'cards.diag.sessionUp' : 'cards.diag.noSession');
    case 'traffic':
      return t('cards.diag.trafficLeft', { left: formatBytes(f.bytesLeft ?? 0) });
    case 'mobile4g':
      return t(f.fourGOnly ? 'cards.diag.fourGOnly' : 'cards.diag.anyNetwork');
    case 'apn':
      return f.apn || t('cards.diag.noApn');
    case 'certification':
      return t(`cards.certification.${f.certification ?? 'none'}`);
    case 'expiry':
      return t('cards.diag.expiresAt', { date: formatDateTime(f.at) });
    case 'directional':
      return t(!f.hasGroup ? 'cards.diag.noGroup' : c.passed ? 'cards.diag.groupWorking' : 'cards.diag.groupNotWorking');
    default:
      return c.detail;
  }
}

/** Intelligent test: the carrier's checks and the platform's, each passed or failed with its detail. */
export function IntelligentTestPage() {
  const { t } = useTranslation();
  const initial = new URLSearchParams(useSearch()).get('iccid') ?? '';
  const [iccid, setIccid] = useState(initial);
  const [report, setReport] = useState<DiagnosisReport>();
  const [problem, setProblem] = useState('');
  // An unknown ICCID is said on the page, not left blank.
  const run = (value: string) => {
    const v = value.trim();
    if (!v) return;
    cardsApi.intelligentTest(v).then((r) => (setReport(r), setProblem('')), (err: unknown) => {
      setReport(undefined);
      setProblem(err instanceof RequestError && err.key === 'card.notFound' ? t('cards.testNotFound', { iccid: v }) : t('cards.testFailed', { message: err instanceof Error ? err.message : '' }));
    });
  };
  useEffect(() => run(initial), [initial]);
  return (
    <Stack>
      <Title order={3}>{t('route.intelligentTest')}</Title>
      <Group>
        <TextInput w={260} placeholder={t('cards.iccid')} value={iccid} onChange={(e) => setIccid(e.currentTarget.value)} data-testid="test-iccid" />
        <Button onClick={() => run(iccid)} data-testid="test-run">
          {t('cards.run')}
        </Button>
      </Group>
      {problem && (
        <Text c="red" data-testid="test-problem">
          {problem}
        </Text>
      )}
      {report && (
        <>
          <Text fw={600} c={report.passed ? 'green' : 'red'}>
            {t(report.passed ? 'cards.allPassed' : 'cards.someFailed')} ({formatDateTime(report.testedAt)})
          </Text>
          <Table>
            <Table.Tbody>
              {report.checks.map((c) => (
                <Table.Tr key={c.code}>
                  <Table.Td>{t(`cards.check.${c.code}`)}</Table.Td>
                  <Table.Td>
                    <Badge color={c.passed ? 'green' : 'red'} variant="light">
                      {t(c.passed ? 'cards.passed' : 'cards.failed')}
                    </Badge>
                  </Table.Td>
                  <Table.Td data-testid={`check-${c.code}`}>{checkDetail(t, c)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
