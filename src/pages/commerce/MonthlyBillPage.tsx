import { Badge, Button, Group, Modal, Select, Stack, Text, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { paymentStateLabels } from '../../../protocol/index.ts';
import { commerceApi, formatAmount, type MonthlyBill } from '../../api/commerce.ts';
import type { Page } from '../../api/devices.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { formatDateTime } from '../../format/date.ts';
import { label } from '../sim/card-labels.ts';

const SORT_BY: SortValues<MonthlyBill> = { month: (b) => b.month, cardCount: (b) => b.cardCount, amount: (b) => b.amount };

type Detail = Awaited<ReturnType<typeof commerceApi.monthlyDetail>> extends Page<infer T> ? T : never;

/** Monthly bills: the function fee of each month from the cards valid in it, the cards billed, and paying a month. */
export function MonthlyBillPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const thisYear = new Date().getFullYear();
  const [year, setYear] = useState(thisYear);
  const [month, setMonth] = useState<string>();

  // A year's months come whole; the table sorts and pages them here. A month's cards are paged by the server.
  const load = useCallback(async (q: ListQuery) => localPage((await commerceApi.monthly(year)).list, q, SORT_BY), [year]);
  const loadDetail = useCallback((q: ListQuery) => (month === undefined ? Promise.resolve({ total: 0, list: [] }) : commerceApi.monthlyDetail(month, q.pageNum, q.pageSize)), [month]);

  const pay = (bill: MonthlyBill) => {
    if (bill.orderNo && bill.tradeState === 'NOT_PAY') return navigate(`/pay-data/index?orderNo=${bill.orderNo}&amount=${bill.amount}`);
    void commerceApi.create({ type: 'monthly_function_fee', month: bill.month }).then((o) => navigate(`/pay-data/index?orderNo=${o.orderNo}&amount=${o.amount}`), () => undefined);
  };

  const columns: DataColumn<MonthlyBill>[] = [
    { key: 'month', title: t('cards.commerce.month'), fixed: true, sortable: true, render: (b) => b.month },
    { key: 'cardCount', title: t('cards.commerce.cardCount'), sortable: true, render: (b) => b.cardCount },
    { key: 'unitPrice', title: t('cards.commerce.unitPrice'), render: (b) => formatAmount(b.unitPrice) },
    { key: 'amount', title: t('cards.commerce.amount'), sortable: true, render: (b) => formatAmount(b.amount) },
    { key: 'tradeState', title: t('cards.commerce.tradeState'), render: (b) => (b.tradeState ? <Badge variant="light">{label(paymentStateLabels, b.tradeState)}</Badge> : '-') },
  ];
  const detailColumns: DataColumn<Detail>[] = [
    { key: 'iccid', title: t('cards.iccid'), fixed: true, render: (c) => c.iccid },
    { key: 'msisdn', title: t('cards.msisdn'), render: (c) => c.msisdn },
    { key: 'activatedAt', title: t('cards.activatedAt'), style: { whiteSpace: 'nowrap' }, render: (c) => formatDateTime(c.activatedAt) },
    { key: 'expiry', title: t('cards.expiry'), style: { whiteSpace: 'nowrap' }, render: (c) => formatDateTime(c.expireTime).slice(0, 10) },
    { key: 'fee', title: t('cards.commerce.amount'), render: (c) => formatAmount(c.fee) },
  ];

  return (
    <Stack>
      <Title order={3}>{t('route.monthlyBill')}</Title>
      <Group>
        <Select
          w={120}
          label={t('cards.commerce.year')}
          data={[0, 1, 2, 3].map((d) => String(thisYear - d))}
          value={String(year)}
          onChange={(v) => setYear(Number(v ?? thisYear))}
          allowDeselect={false}
        />
        <Text size="sm" c="dimmed" mt="lg">
          {t('cards.commerce.feeNote')}
        </Text>
      </Group>
      <DataTable<MonthlyBill, string>
        id="monthly-bills"
        columns={columns}
        rowKey={(b) => b.month}
        rowProps={(b) => ({ 'data-month': b.month })}
        load={load}
        filterKey={String(year)}
        defaultSort="month"
        actions={(b) => (
          <>
            <Button size="compact-xs" variant="subtle" onClick={() => setMonth(b.month)}>
              {t('cards.commerce.detailList')}
            </Button>
            {b.cardCount > 0 && b.tradeState !== 'SUCCESS' && (
              <Button size="compact-xs" variant="light" onClick={() => pay(b)}>
                {t('cards.commerce.payBill')}
              </Button>
            )}
          </>
        )}
      />
      <Modal opened={month !== undefined} onClose={() => setMonth(undefined)} title={`${t('cards.commerce.detailList')} ${month ?? ''}`} size="xl" centered>
        {month !== undefined && (
          <DataTable<Detail, string>
            id="monthly-bill-detail"
            columns={detailColumns}
            rowKey={(c) => c.iccid}
            load={loadDetail}
            filterKey={month}
            emptyText={t('cards.empty')}
          />
        )}
      </Modal>
    </Stack>
  );
}
