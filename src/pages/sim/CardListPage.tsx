import { Anchor, Badge, Button, Group, Progress, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { carrierLabels, comboTypeLabels, JuxinCardStatus, realStatusLabels } from '../../../protocol/index.ts';
import { type Card, type CardFamily, type CardQuery, cardsApi, formatBytes } from '../../api/cards.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../format/date.ts';
import { carrierOf, comboOf, isRunning, isStopped, options, realStatusOf, reasonOf, statusLabels, statusOf } from './card-labels.ts';
import { BindGroupDialog, isDirectional } from './BindGroupDialog.tsx';

interface Filters {
  iccid: string;
  msisdn: string;
  carrier: string | null;
  status: string | null;
  realStatus: string | null;
  comboType: string | null;
}
const noFilters: Filters = { iccid: '', msisdn: '', carrier: null, status: null, realStatus: null, comboType: null };

/** One card family's list: filters, paging, usage, stop and restart with confirmation, link to the detail. */
export function CardListPage({ family, titleKey }: { family: CardFamily; titleKey: string }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const payPath = family === 'juxin' ? '/juxin-pay-data/index' : '/pay-data/index';
  const [draft, setDraft] = useState<Filters>(noFilters);
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [reload, setReload] = useState(0);
  const refresh = useCallback(() => setReload((n) => n + 1), []);
  const [confirm, setConfirm] = useState<{ card: Card; action: '00' | '01' }>();
  const [binding, setBinding] = useState<Card>();

  const load = useCallback(
    (list: ListQuery) => {
      const q: CardQuery = {
        pageNum: list.pageNum,
        pageSize: list.pageSize,
        iccid: filters.iccid.trim(),
        msisdn: filters.msisdn.trim(),
        ...(filters.carrier ? { carrier: filters.carrier } : {}),
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.realStatus ? { realStatus: filters.realStatus } : {}),
        ...(filters.comboType ? { comboType: filters.comboType } : {}),
      };
      return cardsApi.list(family, q);
    },
    [family, filters],
  );

  const act = async () => {
    if (!confirm) return;
    const { card, action } = confirm;
    setConfirm(undefined);
    await cardsApi.changeStatus(family, card.iccid, action).then(
      () => {
        notifications.show({ color: 'green', message: t('cards.done'), autoClose: TOAST_MS });
        refresh();
      },
      () => undefined,
    );
  };

  const columns: DataColumn<Card>[] = [
    {
      key: 'iccid',
      title: t('cards.iccid'),
      fixed: true,
      render: (card) => (
        <Anchor component={Link} href={`/sim-card-management/sim-card-view?iccid=${card.iccid}`} size="sm">
          {card.iccid}
        </Anchor>
      ),
    },
    { key: 'msisdn', title: t('cards.msisdn'), render: (card) => card.msisdn },
    { key: 'carrier', title: t('cards.carrier'), render: (card) => carrierOf(card) },
    {
      key: 'status',
      title: t('cards.status'),
      render: (card) => (
        <Badge variant="light" color={isRunning(card) ? 'green' : isStopped(card) ? 'red' : 'gray'} data-testid="card-status" title={reasonOf(card.statusReason)}>
          {statusOf(card)}
        </Badge>
      ),
    },
    ...(family === 'link'
      ? [
          // Offered in the column choice: with them the table is wider than 1366 px in English and the
          // sticky actions column covers the expiry.
          { key: 'realStatus', title: t('cards.realStatus'), hiddenByDefault: true, render: (card: Card) => realStatusOf(card) },
          { key: 'comboType', title: t('cards.comboType'), hiddenByDefault: true, render: (card: Card) => comboOf(card) },
        ]
      : []),
    {
      key: 'usage',
      title: t('cards.usage'),
      style: { minWidth: 120 },
      render: (card) => (
        <>
          <Text size="xs">
            {formatBytes(card.usedBytes)} / {formatBytes(card.quotaBytes)}
          </Text>
          <Progress size="xs" value={card.quotaBytes ? Math.min(100, (100 * card.usedBytes) / card.quotaBytes) : 0} />
        </>
      ),
    },
    { key: 'expiry', title: t('cards.expiry'), style: { whiteSpace: 'nowrap' }, render: (card) => formatDateTime(card.expireTime).slice(0, 10) },
  ];

  const select = (key: 'carrier' | 'status' | 'realStatus' | 'comboType', placeholder: string, data: { value: string; label: string }[]) => (
    <Select
      w={170}
      placeholder={placeholder}
      data={data}
      value={draft[key]}
      onChange={(v) => setDraft((d) => ({ ...d, [key]: v }))}
      clearable
      data-testid={`filter-${key}`}
    />
  );

  return (
    <Stack gap="md">
      <Title order={3}>{t(titleKey)}</Title>
      <Group>
        <TextInput placeholder={t('cards.iccid')} value={draft.iccid} onChange={(e) => setDraft({ ...draft, iccid: e.currentTarget.value })} />
        <TextInput placeholder={t('cards.msisdn')} value={draft.msisdn} onChange={(e) => setDraft({ ...draft, msisdn: e.currentTarget.value })} />
        {select('carrier', t('cards.carrier'), options(carrierLabels))}
        {select('status', t('cards.status'), options(statusLabels[family]))}
        {family === 'link' && select('realStatus', t('cards.realStatus'), options(realStatusLabels))}
        {family === 'link' && select('comboType', t('cards.comboType'), options(comboTypeLabels))}
        <Button onClick={() => setFilters(draft)} data-testid="card-search">
          {t('cards.search')}
        </Button>
        <Button variant="default" onClick={() => (setDraft(noFilters), setFilters(noFilters))}>
          {t('cards.reset')}
        </Button>
        {family !== 'spring' && (
          <Button variant="light" onClick={() => navigate(payPath)}>
            {t(family === 'juxin' ? 'cards.commerce.buy' : 'cards.commerce.cardPurchase')}
          </Button>
        )}
      </Group>
      {family === 'spring' && (
        <Text size="sm" c="dimmed">
          {t('cards.dailyNote')}
        </Text>
      )}
      <DataTable<Card, number>
        id={`cards-${family}`}
        columns={columns}
        rowKey={(card) => card.id}
        rowProps={(card) => ({ 'data-iccid': card.iccid })}
        load={load}
        filterKey={JSON.stringify(filters)}
        reload={reload}
        emptyText={t('cards.empty')}
        actions={(card) => (
          <>
            {isRunning(card) && (
              <Button size="compact-xs" color="red" variant="light" disabled={card.actionsLeftToday === 0} title={card.actionsLeftToday === 0 ? t('cards.noActionsLeft') : undefined} onClick={() => setConfirm({ card, action: '01' })} data-testid="card-stop">
                {t('cards.stop')}
              </Button>
            )}
            {isStopped(card) && (
              <Button size="compact-xs" variant="light" disabled={card.actionsLeftToday === 0} title={card.actionsLeftToday === 0 ? t('cards.noActionsLeft') : undefined} onClick={() => setConfirm({ card, action: '00' })} data-testid="card-restart">
                {t('cards.restart')}
              </Button>
            )}
            {family === 'link' && isDirectional(card.comboType) && (
              <Button size="compact-xs" variant="subtle" onClick={() => setBinding(card)} data-testid="card-bind-group">
                {t('cards.bindGroup')}
              </Button>
            )}
            {family !== 'spring' && !(family === 'juxin' && card.juxinStatus === JuxinCardStatus.Cancelled) && (
              <Button size="compact-xs" variant="subtle" onClick={() => navigate(`${payPath}?iccid=${card.iccid}`)}>
                {t(family === 'juxin' ? 'cards.commerce.renew' : 'cards.commerce.topUp')}
              </Button>
            )}
            {card.actionsLeftToday !== null && (
              <Text size="xs" c="dimmed">
                {t('cards.actionsLeft', { count: card.actionsLeftToday })}
              </Text>
            )}
          </>
        )}
      />
      <ConfirmDialog
        opened={confirm !== undefined}
        title={t(confirm?.action === '01' ? 'cards.stop' : 'cards.restart')}
        message={t(confirm?.action === '01' ? 'cards.confirmStop' : 'cards.confirmRestart', { iccid: confirm?.card.iccid ?? '' })}
        onConfirm={() => void act()}
        onCancel={() => setConfirm(undefined)}
        danger={confirm?.action === '01'}
        confirmTestId="card-confirm"
      />
      {binding && <BindGroupDialog iccid={binding.iccid} groupId={binding.groupId} onClose={() => setBinding(undefined)} onBound={refresh} />}
    </Stack>
  );
}

export const SpringCardPage = () => <CardListPage family="spring" titleKey="route.springCardManage" />;
export const LinkCardPage = () => <CardListPage family="link" titleKey="route.cardManagement" />;
export const JuxinCardPage = () => <CardListPage family="juxin" titleKey="route.juxinCardManage" />;
