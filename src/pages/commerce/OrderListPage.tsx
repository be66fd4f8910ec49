import { Badge, Button, Group, Modal, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { invoiceTypeLabels, payMethodLabels, paymentStateLabels, purchaseTypeLabels, simFormFactorLabels } from '../../../protocol/index.ts';
import { commerceApi, formatAmount, type Invoice, type Order, type OrderLine, type OrderQuery } from '../../api/commerce.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { formatDateTime } from '../../format/date.ts';
import { label, options } from '../sim/card-labels.ts';
import { INVOICE_FIELDS, INVOICE_NO, type InvoiceField, invoiceFieldProblem, type OrderInvoice } from '../../../protocol/api/invoices.ts';

const BILL_TYPES = ['flow', 'monthly_function_fee', 'unify_sim', 'sim'];
const emptyInvoice: Invoice = { type: 'PLAIN', header: '', taxCode: '', bank: '', bankAccount: '', address: '', telephone: '' };
/**
 * One order line in the console's language: the item named by its label where it is a code (purchase type,
 * SIM form factor), the unit translated (GB, month, portion); ICCIDs, months and ISOBUS stay as they are.
 */
function lineText(t: TFunction, l: OrderLine): string {
  const purchase = purchaseTypeLabels.find((m) => m.value === l.item);
  const form = simFormFactorLabels.find((m) => m.value === l.item);
  const item = purchase ? label(purchaseTypeLabels, l.item) : form ? label(simFormFactorLabels, l.item) : l.item;
  const unit = ['GB', 'month', 'portion'].includes(l.unit) ? t(`cards.commerce.units.${l.unit}`, { count: l.quantity }) : l.unit;
  return `${item} × ${l.quantity} ${unit}`;
}

/** Label key of each invoice field. */
const FIELD_LABEL: Readonly<Record<InvoiceField, string>> = { header: 'header', taxCode: 'taxCode', bank: 'bank', bankAccount: 'bankAccount', address: 'registerAddress', telephone: 'telephone' };

/** An order's invoice, read-only: the buyer's fields of its type, and the number, date and amount once issued. */
function InvoiceView({ invoice }: { invoice: OrderInvoice }) {
  const { t } = useTranslation();
  const rows: [string, string][] = [
    [t('cards.commerce.invoiceState'), t(invoice.state === 'issued' ? 'cards.commerce.invoiceIssued' : 'cards.commerce.invoiceRequested')],
    [t('cards.commerce.invoiceType'), label(invoiceTypeLabels, invoice.type)],
    ...INVOICE_FIELDS[invoice.type].map((f): [string, string] => [t(`cards.commerce.${FIELD_LABEL[f]}`), invoice[f] || '-']),
    [t('cards.commerce.requestedAt'), invoice.requestedAt ? formatDateTime(invoice.requestedAt) : '-'],
  ];
  if (invoice.state === 'issued') {
    rows.push([t('cards.commerce.invoiceNo'), invoice.number ?? ''], [t('cards.commerce.invoiceDate'), formatDateTime(invoice.issuedAt)], [t('cards.commerce.invoiceAmount'), formatAmount(invoice.amount ?? 0)]);
  }
  return (
    <Table withTableBorder data-testid="invoice-view">
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Th w={160}>{k}</Table.Th>
            <Table.Td>{v}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Orders (every purchase type) or link-card bills: filters, pay, close, invoice, and staff's offline confirmation. */
export function OrderListPage({ bills }: { bills: boolean }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  // ?orderNo= (where paying lands) opens the list filtered to that order.
  const linked = new URLSearchParams(useSearch()).get('orderNo') ?? '';
  const [draft, setDraft] = useState<{ orderNo: string; type: string | null; tradeState: string | null }>({ orderNo: linked, type: null, tradeState: null });
  const [filters, setFilters] = useState(draft);
  const [confirm, setConfirm] = useState<{ order: Order; action: 'close' | 'offline' }>();
  const [invoiceFor, setInvoiceFor] = useState<Order>();
  const [invoice, setInvoice] = useState<Invoice>(emptyInvoice);
  const [invoiceErrors, setInvoiceErrors] = useState<Partial<Record<InvoiceField, string>>>({});
  const [viewing, setViewing] = useState<Order>();
  const [invoiceNo, setInvoiceNo] = useState('');
  const [invoiceNoError, setInvoiceNoError] = useState('');
  const [staff, setStaff] = useState(false);
  const [shipping, setShipping] = useState<{ order: Order; trackingNo: string; error?: string }>();
  const trackingError = (v: string) => (/^[A-Za-z0-9-]{6,40}$/.test(v.trim()) ? undefined : t('cards.commerce.trackingNoRule'));
  const ship = () => {
    if (!shipping) return;
    const error = trackingError(shipping.trackingNo);
    if (error) return setShipping({ ...shipping, error });
    void commerceApi.ship(shipping.order.orderNo, shipping.trackingNo.trim()).then(() => (setShipping(undefined), done()), () => undefined);
  };
  useEffect(() => {
    commerceApi.paymentMode().then((m) => setStaff(m.staff), () => undefined);
  }, []);

  const load = useCallback(
    (list: ListQuery) => {
      const q: OrderQuery = {
        pageNum: list.pageNum,
        pageSize: list.pageSize,
        ...(filters.orderNo.trim() ? { orderNo: filters.orderNo.trim() } : {}),
        ...(filters.type ? { type: filters.type } : {}),
        ...(filters.tradeState ? { tradeState: filters.tradeState } : {}),
      };
      return bills ? commerceApi.bills(q) : commerceApi.orders(q);
    },
    [bills, filters],
  );
  const [reload, setReload] = useState(0);
  const refresh = () => setReload((n) => n + 1);

  const done = () => {
    notifications.show({ color: 'green', message: t('cards.done'), autoClose: TOAST_MS });
    refresh();
  };

  const act = () => {
    if (!confirm) return;
    const { order, action } = confirm;
    setConfirm(undefined);
    void (action === 'close' ? commerceApi.close(order.orderNo) : commerceApi.confirmOffline(order.orderNo)).then(done, () => undefined);
  };

  const columns = useMemo(
    (): DataColumn<Order>[] => [
      { key: 'orderNo', title: t('cards.commerce.orderNo'), fixed: true, render: (o) => o.orderNo },
      { key: 'type', title: t('cards.commerce.type'), render: (o) => label(purchaseTypeLabels, o.type) },
      {
        key: 'lines',
        title: t('cards.commerce.lines'),
        render: (o) => (
          <>
            <Text size="xs">
              {o.lines.map((l) => lineText(t, l)).join('; ')}
              {o.logistics && ` | ${o.logistics.contact} ${o.logistics.phone} ${o.logistics.area} ${o.logistics.address}`}
            </Text>
            {o.logistics?.shipping && (
              <Group gap={4} mt={2}>
                <Badge size="xs" variant="light" color={o.logistics.shipping === 'received' ? 'green' : o.logistics.shipping === 'shipped' ? 'blue' : 'orange'} data-testid="shipping-state">
                  {t(`cards.commerce.shipping.${o.logistics.shipping}`)}
                </Badge>
                {o.logistics.trackingNo && (
                  <Text size="xs" data-testid="tracking-no">
                    {t('cards.commerce.trackingNo')}: {o.logistics.trackingNo}
                  </Text>
                )}
                {o.logistics.iccids && o.logistics.iccids.length > 0 && (
                  <Text size="xs" c="dimmed" data-testid="delivered-cards">
                    {t('cards.commerce.deliveredCards', { count: o.logistics.iccids.length, first: o.logistics.iccids[0] })}
                  </Text>
                )}
              </Group>
            )}
          </>
        ),
      },
      { key: 'amount', title: t('cards.commerce.amount'), render: (o) => formatAmount(o.amount) },
      {
        key: 'tradeState',
        title: t('cards.commerce.tradeState'),
        render: (o) => (
          <Badge variant="light" color={o.tradeState === 'SUCCESS' ? 'green' : o.tradeState === 'CLOSED' ? 'gray' : 'orange'} data-testid="order-state">
            {o.offlinePending ? t('cards.commerce.offlinePending') : label(paymentStateLabels, o.tradeState)}
          </Badge>
        ),
      },
      { key: 'payMethod', title: t('cards.commerce.payMethod'), render: (o) => label(payMethodLabels, o.payMethod) },
      {
        key: 'invoiced',
        title: t('cards.commerce.invoiced'),
        render: (o) =>
          o.invoice ? (
            <Badge variant="light" color={o.invoice.state === 'issued' ? 'green' : 'blue'} data-testid="invoice-state">
              {t(o.invoice.state === 'issued' ? 'cards.commerce.invoiceIssued' : 'cards.commerce.invoiceRequested')}
            </Badge>
          ) : (
            '-'
          ),
      },
      { key: 'createdAt', title: t('cards.commerce.created'), render: (o) => formatDateTime(o.createdAt) },
    ],
    [t],
  );

  const types = options(purchaseTypeLabels).filter((o) => !bills || BILL_TYPES.includes(o.value));
  // Each field is checked when it loses focus, by the rules of the chosen type (protocol/api/invoices.ts).
  const fieldError = (key: InvoiceField, value: string) => {
    const problem = invoiceFieldProblem(invoice.type, key, value);
    return problem ? t(`cards.commerce.invoiceErrors.${problem}`) : undefined;
  };
  const text = (key: InvoiceField) => (
    <TextInput
      key={key}
      label={t(`cards.commerce.${FIELD_LABEL[key]}`)}
      required={invoice.type === 'VAT' || key === 'header'}
      value={String(invoice[key] ?? '')}
      error={invoiceErrors[key]}
      onChange={(e) => {
        const v = e.currentTarget.value;
        setInvoice((i) => ({ ...i, [key]: v }));
        setInvoiceErrors((errs) => ({ ...errs, [key]: undefined }));
      }}
      onBlur={(e) => {
        const v = e.currentTarget.value;
        setInvoiceErrors((errs) => ({ ...errs, [key]: fieldError(key, v) }));
      }}
      data-testid={`invoice-${key}`}
    />
  );
  const requestInvoice = () => {
    const o = invoiceFor;
    if (!o) return;
    const fields = INVOICE_FIELDS[invoice.type];
    const errs = Object.fromEntries(fields.map((f) => [f, fieldError(f, String(invoice[f] ?? ''))]));
    setInvoiceErrors(errs);
    if (Object.values(errs).some(Boolean)) return;
    // Only the chosen type's fields are sent.
    const body: Invoice = { type: invoice.type, header: invoice.header.trim(), ...Object.fromEntries(fields.filter((f) => f !== 'header').map((f) => [f, String(invoice[f] ?? '').trim()])) };
    void commerceApi.invoice([o.orderNo], body).then(() => {
      setInvoiceFor(undefined);
      notifications.show({ color: 'green', message: t('cards.commerce.invoiceRequestedToast'), autoClose: TOAST_MS });
      refresh();
    }, () => undefined);
  };
  const issue = () => {
    const o = viewing;
    if (!o) return;
    if (!INVOICE_NO.test(invoiceNo.trim())) return setInvoiceNoError(t('cards.commerce.invoiceErrors.invoiceNo'));
    void commerceApi.issueInvoice(o.orderNo, invoiceNo.trim()).then((issued) => {
      setViewing({ ...o, invoice: issued });
      notifications.show({ color: 'green', message: t('cards.commerce.invoiceIssuedToast', { number: issued.number ?? '' }), autoClose: TOAST_MS });
      refresh();
    }, () => undefined);
  };

  return (
    <Stack>
      <Title order={3}>{t(bills ? 'route.billQuery' : 'route.orderQuery')}</Title>
      <Group>
        <TextInput placeholder={t('cards.commerce.orderNo')} value={draft.orderNo} onChange={(e) => setDraft({ ...draft, orderNo: e.currentTarget.value })} />
        <Select w={200} placeholder={t('cards.commerce.type')} data={types} value={draft.type} onChange={(v) => setDraft({ ...draft, type: v })} clearable />
        <Select w={160} placeholder={t('cards.commerce.tradeState')} data={options(paymentStateLabels)} value={draft.tradeState} onChange={(v) => setDraft({ ...draft, tradeState: v })} clearable />
        <Button onClick={() => setFilters(draft)}>{t('cards.search')}</Button>
        {bills && (
          <Button variant="light" onClick={() => navigate('/pay-data/index')} data-testid="go-pay-data">
            {t('cards.commerce.topUp')}
          </Button>
        )}
      </Group>
      <DataTable<Order, string>
        id={bills ? 'link-card-bills' : 'orders'}
        columns={columns}
        rowKey={(o) => o.orderNo}
        rowProps={(o) => ({ 'data-order': o.orderNo })}
        load={load}
        filterKey={JSON.stringify(filters)}
        reload={reload}
        emptyText={t('cards.commerce.empty')}
        actions={(o) => (
          <>
            {o.tradeState === 'NOT_PAY' && !o.offlinePending && (
              <Button size="compact-xs" variant="light" onClick={() => navigate(`/pay-data/index?orderNo=${o.orderNo}&amount=${o.amount}`)}>
                {t('cards.commerce.pay')}
              </Button>
            )}
            {o.tradeState === 'NOT_PAY' && (
              <Button size="compact-xs" variant="subtle" color="red" onClick={() => setConfirm({ order: o, action: 'close' })}>
                {t('cards.commerce.close')}
              </Button>
            )}
            {o.offlinePending && !bills && (
              <Button size="compact-xs" variant="light" color="green" onClick={() => setConfirm({ order: o, action: 'offline' })} data-testid="confirm-offline">
                {t('cards.commerce.confirmOffline')}
              </Button>
            )}
            {staff && o.logistics?.shipping === 'to_ship' && (
              <Button size="compact-xs" variant="light" onClick={() => setShipping({ order: o, trackingNo: '' })} data-testid="order-ship">
                {t('cards.commerce.ship')}
              </Button>
            )}
            {o.logistics?.shipping === 'shipped' && (
              <Button size="compact-xs" variant="light" color="green" onClick={() => void commerceApi.receive(o.orderNo).then(done, () => undefined)} data-testid="order-receive">
                {t('cards.commerce.confirmReceipt')}
              </Button>
            )}
            {o.tradeState === 'SUCCESS' && !o.invoiced && (
              <Button size="compact-xs" variant="subtle" onClick={() => (setInvoice(emptyInvoice), setInvoiceErrors({}), setInvoiceFor(o))} data-testid="invoice-request">
                {t('cards.commerce.requestInvoice')}
              </Button>
            )}
            {o.invoice && (
              <Button size="compact-xs" variant="subtle" onClick={() => (setInvoiceNo(''), setInvoiceNoError(''), setViewing(o))} data-testid="invoice-view-open">
                {t('cards.commerce.viewInvoice')}
              </Button>
            )}
          </>
        )}
      />
      <ConfirmDialog
        opened={confirm !== undefined}
        title={t(confirm?.action === 'close' ? 'cards.commerce.close' : 'cards.commerce.confirmOffline')}
        message={t(confirm?.action === 'close' ? 'cards.commerce.confirmClose' : 'cards.commerce.confirmOfflineText', { orderNo: confirm?.order.orderNo ?? '' })}
        onConfirm={act}
        onCancel={() => setConfirm(undefined)}
        danger={confirm?.action === 'close'}
        confirmTestId="order-confirm"
      />
      <Modal opened={invoiceFor !== undefined} onClose={() => setInvoiceFor(undefined)} title={`${t('cards.commerce.requestInvoice')} ${invoiceFor?.orderNo ?? ''}`} centered>
        <Stack>
          <Select
            label={t('cards.commerce.invoiceType')}
            data={options(invoiceTypeLabels)}
            value={invoice.type}
            onChange={(v) => (setInvoice((i) => ({ ...i, type: v === 'VAT' ? 'VAT' : 'PLAIN' })), setInvoiceErrors({}))}
            allowDeselect={false}
            data-testid="invoice-type"
          />
          {INVOICE_FIELDS[invoice.type].map((f) => text(f))}
          <Group justify="flex-end">
            <Button onClick={requestInvoice} data-testid="invoice-submit">
              {t('device.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={shipping !== undefined} onClose={() => setShipping(undefined)} title={t('cards.commerce.shipTitle', { orderNo: shipping?.order.orderNo ?? '' })} centered>
        {shipping && (
          <Stack>
            <TextInput
              label={t('cards.commerce.trackingNo')}
              value={shipping.trackingNo}
              error={shipping.error}
              onChange={(e) => setShipping({ ...shipping, trackingNo: e.currentTarget.value, error: undefined })}
              onBlur={() => setShipping({ ...shipping, error: shipping.trackingNo ? trackingError(shipping.trackingNo) : undefined })}
              data-testid="tracking-input"
            />
            <Button onClick={ship} data-testid="ship-confirm">
              {t('cards.commerce.ship')}
            </Button>
          </Stack>
        )}
      </Modal>
      <Modal opened={viewing !== undefined} onClose={() => setViewing(undefined)} title={`${t('cards.commerce.viewInvoice')} ${viewing?.orderNo ?? ''}`} centered size="lg">
        {viewing?.invoice && (
          <Stack>
            <InvoiceView invoice={viewing.invoice} />
            {staff && viewing.invoice.state === 'requested' && (
              <Group align="flex-start">
                <TextInput
                  label={t('cards.commerce.invoiceNo')}
                  value={invoiceNo}
                  error={invoiceNoError || undefined}
                  onChange={(e) => (setInvoiceNo(e.currentTarget.value), setInvoiceNoError(''))}
                  onBlur={() => setInvoiceNoError(invoiceNo && !INVOICE_NO.test(invoiceNo.trim()) ? t('cards.commerce.invoiceErrors.invoiceNo') : '')}
                  data-testid="invoice-no"
                />
                <Button mt={24} onClick={issue} data-testid="invoice-issue">
                  {t('cards.commerce.issueInvoice')}
                </Button>
              </Group>
            )}
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

export const BillQueryPage = () => <OrderListPage bills />;
export const OrderQueryPage = () => <OrderListPage bills={false} />;
