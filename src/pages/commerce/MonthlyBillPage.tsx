import { Badge, Button, Group, Modal, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { paymentStateLabels } from '../../../protocol/index.ts';
import { commerceApi, formatAmount, type MonthlyBill } from '../../api/commerce.ts';
import type { Page } from '../../api/devices.ts';
import { ListFooter } from '../../components/ListFooter.tsx';
import { formatDateTime } from '../../format/date.ts';
import { label } from '../sim/card-labels.ts';

type Detail = Awaited<ReturnType<typeof commerceApi.monthlyDetail>> extends Page<infer T> ? T : never;

/** Monthly bills: the function fee of each month from the cards valid in it, the cards billed, and paying a month. */
export function MonthlyBillPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const thisYear = new Date().getFullYear();
  const [year, setYear] = useState(thisYear);
  const [bills, setBills] = useState<readonly MonthlyBill[]>([]);
  const [month, setMonth] = useState<string>();
  const [pageNum, setPageNum] = useState(1);
  const [detail, setDetail] = useState<Page<Detail>>();

  useEffect(() => {
    commerceApi.monthly(year).then((r) => setBills(r.list), () => undefined);
  }, [year]);
  const loadDetail = useCallback(() => {
    if (month) commerceApi.monthlyDetail(month, pageNum, 10).then(setDetail, () => undefined);
  }, [month, pageNum]);
  useEffect(loadDetail, [loadDetail]);

  const pay = (bill: MonthlyBill) => {
    if (bill.orderNo && bill.tradeState === 'NOT_PAY') return navigate(`/pay-data/index?orderNo=${bill.orderNo}&amount=${bill.amount}`);
    void commerceApi.create({ type: 'monthly_function_fee', month: bill.month }).then((o) => navigate(`/pay-data/index?orderNo=${o.orderNo}&amount=${o.amount}`), () => undefined);
  };

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
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('cards.commerce.month')}</Table.Th>
            <Table.Th>{t('cards.commerce.cardCount')}</Table.Th>
            <Table.Th>{t('cards.commerce.unitPrice')}</Table.Th>
            <Table.Th>{t('cards.commerce.amount')}</Table.Th>
            <Table.Th>{t('cards.commerce.tradeState')}</Table.Th>
            <Table.Th>{t('cards.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {bills.map((b) => (
            <Table.Tr key={b.month} data-month={b.month}>
              <Table.Td>{b.month}</Table.Td>
              <Table.Td>{b.cardCount}</Table.Td>
              <Table.Td>{formatAmount(b.unitPrice)}</Table.Td>
              <Table.Td>{formatAmount(b.amount)}</Table.Td>
              <Table.Td>{b.tradeState ? <Badge variant="light">{label(paymentStateLabels, b.tradeState)}</Badge> : '-'}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  <Button size="compact-xs" variant="subtle" onClick={() => (setPageNum(1), setMonth(b.month))}>
                    {t('cards.commerce.detailList')}
                  </Button>
                  {b.cardCount > 0 && b.tradeState !== 'SUCCESS' && (
                    <Button size="compact-xs" variant="light" onClick={() => pay(b)}>
                      {t('cards.commerce.payBill')}
                    </Button>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Modal opened={month !== undefined} onClose={() => setMonth(undefined)} title={`${t('cards.commerce.detailList')} ${month ?? ''}`} size="xl" centered>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('cards.iccid')}</Table.Th>
              <Table.Th>{t('cards.msisdn')}</Table.Th>
              <Table.Th>{t('cards.activatedAt')}</Table.Th>
              <Table.Th>{t('cards.expiry')}</Table.Th>
              <Table.Th>{t('cards.commerce.amount')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {detail?.list.map((c) => (
              <Table.Tr key={c.iccid}>
                <Table.Td>{c.iccid}</Table.Td>
                <Table.Td>{c.msisdn}</Table.Td>
                <Table.Td>{formatDateTime(c.activatedAt)}</Table.Td>
                <Table.Td>{formatDateTime(c.expireTime).slice(0, 10)}</Table.Td>
                <Table.Td>{formatAmount(c.fee)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <ListFooter shown={detail?.list.length} total={detail?.total} emptyText={t('cards.empty')} pageNum={pageNum} pageSize={10} onPage={setPageNum} />
      </Modal>
    </Stack>
  );
}
