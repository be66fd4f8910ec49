import { Alert, Badge, Button, Group, Input, NumberInput, Paper, Radio, SegmentedControl, Select, Stack, Tabs, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import { simFormFactorLabels } from '../../../protocol/index.ts';
import { AMOUNT_PATTERN, commerceApi, formatAmount, type NewOrder, type PayAnswer, type PaymentMode } from '../../api/commerce.ts';
import { checkPhone } from '../../../protocol/index.ts';
import { identityMessageKey } from './identity-messages.ts';
import { TOAST_MS } from '../../api/request.ts';
import { options } from '../sim/card-labels.ts';

type Tab = 'topUp' | 'monthlyFee' | 'cardPurchase';
interface Form {
  iccids: string;
  count: string;
  month: string;
  quantity: string;
  formFactor: string;
  area: string;
  address: string;
  contact: string;
  phone: string;
}

const thisMonth = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
};
const positive = (text: string) => /^[1-9][0-9]{0,5}$/.test(text.trim());

/**
 * Payment of one order: Alipay (the sandbox when the server runs with PAYMENT_SANDBOX=on, badged as such so
 * nobody takes it for a real payment), or an offline transfer to the company account.
 */
export function PayPanel({ orderNo, amount, onPaid }: { orderNo: string; amount: number; onPaid: () => void }) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<PaymentMode>();
  const [method, setMethod] = useState<'alipay' | 'offline'>('alipay');
  const [answer, setAnswer] = useState<PayAnswer>();
  const [transfer, setTransfer] = useState('');
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    commerceApi.paymentMode().then((m) => {
      if (!live) return;
      setMode(m);
      // Without an online provider only the offline transfer is there to choose.
      if (!m.online) setMethod('offline');
    }, () => undefined);
    return () => {
      live = false;
    };
  }, []);

  const start = (m: 'alipay' | 'offline') => {
    setMethod(m);
    setAnswer(undefined);
    // Opening an Alipay trade happens at once; an offline transfer first needs the bank details shown.
    if (m === 'alipay') void commerceApi.pay(orderNo, 'alipay').then(setAnswer, () => undefined);
  };
  const submitTransfer = () => {
    if (!AMOUNT_PATTERN.test(transfer.trim())) return setError(t('cards.commerce.amountRule'));
    setError(undefined);
    void commerceApi.pay(orderNo, 'offline', transfer.trim()).then(() => {
      notifications.show({ color: 'green', message: t('cards.commerce.transferSent'), autoClose: TOAST_MS });
      onPaid();
    }, () => undefined);
  };
  return (
    <Paper withBorder p="md">
      <Stack>
        <Group gap="sm">
          <Title order={4}>{t('cards.commerce.payTitle', { orderNo, amount: formatAmount(amount) })}</Title>
          {mode?.sandbox && (
            <Badge color="yellow" variant="filled" data-testid="sandbox-badge">
              {t('cards.commerce.sandboxBadge')}
            </Badge>
          )}
        </Group>
        {mode?.sandbox && <Alert color="yellow">{t('cards.commerce.sandboxNote')}</Alert>}
        {mode && !mode.online && <Alert color="gray">{t('cards.commerce.noOnlinePayment')}</Alert>}
        <Radio.Group value={method} onChange={(v) => start(v === 'offline' ? 'offline' : 'alipay')}>
          <Group>
            <Radio value="alipay" label={t('cards.commerce.alipay')} disabled={mode?.online === false} />
            <Radio value="offline" label={t('cards.commerce.offline')} data-testid="pay-offline" />
          </Group>
        </Radio.Group>
        {method === 'alipay' && mode?.online && (
          <>
            {!answer && <Button onClick={() => start('alipay')}>{t('cards.commerce.pay')}</Button>}
            {answer?.payMethod === 'alipay' &&
              answer.sandbox &&
              (mode.canSettle ? (
                <Button onClick={() => void commerceApi.sandboxPay(orderNo).then(onPaid, () => undefined)} data-testid="sandbox-pay">
                  {t('cards.commerce.sandboxPay')}
                </Button>
              ) : (
                <Text size="sm" c="dimmed" data-testid="sandbox-admin-only">
                  {t('cards.commerce.sandboxAdminOnly')}
                </Text>
              ))}
          </>
        )}
        {method === 'offline' && (
          <>
            <Text size="sm">{t('cards.commerce.transferTo', { company: 'Device Control Center Technology Co., Ltd.', bank: 'China Merchants Bank, Shenzhen Science Park Branch', account: '7559 2026 1122 0001' })}</Text>
            <TextInput
              label={t('cards.commerce.transferAmount')}
              name="transferAmount"
              value={transfer}
              error={error}
              onBlur={() => setError(AMOUNT_PATTERN.test(transfer.trim()) ? undefined : t('cards.commerce.amountRule'))}
              onChange={(e) => setTransfer(e.currentTarget.value)}
            />
            <Button onClick={submitTransfer} data-testid="submit-transfer">
              {t('cards.commerce.submitTransfer')}
            </Button>
          </>
        )}
      </Stack>
    </Paper>
  );
}

/** The pay-data screens: top up traffic (link cards) or renew (juxin cards), the monthly function fee, and card purchase (single or unified-pool cards). */
export function PayDataPage({ juxin }: { juxin: boolean }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const [tab, setTab] = useState<Tab>('topUp');
  const [form, setForm] = useState<Form>({ iccids: params.get('iccid') ?? '', count: '1', month: params.get('month') ?? thisMonth(), quantity: '1', formFactor: 'nano', area: '', address: '', contact: '', phone: '' });
  const [errors, setErrors] = useState<Partial<Record<keyof Form, string>>>({});
  // Single cards or cards of the organisation's unified pool (sim / unify_sim; zxj_sim / zxj_unify_sim).
  const [unified, setUnified] = useState(false);
  const [order, setOrder] = useState<{ orderNo: string; amount: number } | undefined>(
    params.get('orderNo') ? { orderNo: params.get('orderNo') ?? '', amount: Number(params.get('amount') ?? '0') } : undefined,
  );

  const check = (key: keyof Form, value: string): string | undefined => {
    if (['iccids', 'area', 'address', 'contact', 'month'].includes(key)) return value.trim() ? undefined : t('cards.commerce.required');
    if (key === 'count' || key === 'quantity') return positive(value) ? undefined : t('cards.commerce.positiveInteger');
    if (key === 'phone') {
      // Cards ship to mainland addresses only: the stricter mobile rule, as the server applies it.
      const problem = checkPhone(value.trim(), true);
      return problem ? t(identityMessageKey(problem)) : undefined;
    }
    return undefined;
  };
  const input = (key: keyof Form, labelKey: string) => ({
    label: t(`cards.commerce.${labelKey}`),
    name: key,
    value: form[key],
    error: errors[key],
    onBlur: () => setErrors((e) => ({ ...e, [key]: check(key, form[key]) })),
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      const v = e.currentTarget.value;
      setForm((f) => ({ ...f, [key]: v }));
    },
  });

  const submit = (keys: (keyof Form)[], build: () => NewOrder) => {
    const found = Object.fromEntries(keys.map((k) => [k, check(k, form[k])]).filter(([, v]) => v));
    setErrors(found);
    if (Object.keys(found).length) return;
    void commerceApi.create(build()).then((o) => setOrder({ orderNo: o.orderNo, amount: o.amount }), () => undefined);
  };
  const cards = () =>
    form.iccids
      .split(/[\s,，]+/)
      .filter(Boolean)
      .map((iccid) => ({ iccid, count: Number(form.count) }));
  const logistics = () => ({ area: form.area.trim(), address: form.address.trim(), contact: form.contact.trim(), phone: form.phone.trim() });

  if (order) {
    return (
      <Stack>
        <Title order={3}>{t(juxin ? 'route.juxinPayData' : 'route.payData')}</Title>
        <PayPanel
          orderNo={order.orderNo}
          amount={order.amount}
          onPaid={() => {
            notifications.show({ color: 'green', message: t('cards.commerce.paid'), autoClose: TOAST_MS });
            // Land where the order is listed, filtered to it: the order list holds every type (juxin renewals,
            // licences and card purchases are not link-card bills).
            navigate(`/order-query/index?orderNo=${encodeURIComponent(order.orderNo)}`);
          }}
        />
      </Stack>
    );
  }

  const purchase = (type: 'sim' | 'unify_sim' | 'zxj_sim' | 'zxj_unify_sim') => (
    <Stack>
      <Input.Wrapper label={t('cards.commerce.purchaseKind')} description={unified ? t('cards.commerce.unifiedNote') : undefined}>
        <SegmentedControl
          display="flex"
          w="fit-content"
          value={unified ? 'unified' : 'single'}
          onChange={(v) => setUnified(v === 'unified')}
          data={[
            { value: 'single', label: t('cards.commerce.singleCards') },
            { value: 'unified', label: t('cards.commerce.unifiedCards') },
          ]}
          data-testid="purchase-kind"
        />
      </Input.Wrapper>
      <NumberInput {...input('quantity', 'quantity')} onChange={(v) => setForm((f) => ({ ...f, quantity: String(v) }))} min={1} />
      <Select label={t('cards.commerce.simType')} data={options(simFormFactorLabels)} value={form.formFactor} onChange={(v) => setForm((f) => ({ ...f, formFactor: v ?? 'nano' }))} allowDeselect={false} />
      <TextInput {...input('area', 'area')} />
      <TextInput {...input('address', 'address')} />
      <TextInput {...input('contact', 'contact')} />
      <TextInput {...input('phone', 'phone')} />
      <Button onClick={() => submit(['quantity', 'area', 'address', 'contact', 'phone'], () => ({ type, quantity: Number(form.quantity), formFactor: form.formFactor, logistics: logistics() }))} data-testid="create-purchase">
        {t('cards.commerce.createOrder')}
      </Button>
    </Stack>
  );
  const perCard = (type: 'flow' | 'zxj_flow', countKey: string) => (
    <Stack>
      <Textarea {...input('iccids', 'cardsToTopUp')} autosize minRows={3} />
      <TextInput {...input('count', countKey)} />
      <Button onClick={() => submit(['iccids', 'count'], () => ({ type, cards: cards() }))} data-testid="create-top-up">
        {t('cards.commerce.createOrder')}
      </Button>
    </Stack>
  );

  return (
    <Stack>
      <Title order={3}>{t(juxin ? 'route.juxinPayData' : 'route.payData')}</Title>
      <Text size="sm" c="dimmed">
        {t('cards.commerce.feeNote')}
      </Text>
      <Tabs value={tab} onChange={(v) => setTab((v as Tab | null) ?? 'topUp')} maw={640}>
        <Tabs.List>
          <Tabs.Tab value="topUp">{t(juxin ? 'cards.commerce.renew' : 'cards.commerce.topUp')}</Tabs.Tab>
          <Tabs.Tab value="monthlyFee">{t('cards.commerce.monthlyFee')}</Tabs.Tab>
          <Tabs.Tab value="cardPurchase">{t(juxin ? 'cards.commerce.buy' : 'cards.commerce.cardPurchase')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="topUp" pt="md">
          {juxin ? perCard('zxj_flow', 'monthsEach') : perCard('flow', 'gbEach')}
        </Tabs.Panel>
        <Tabs.Panel value="monthlyFee" pt="md">
          <Stack>
            <Text size="sm" c="dimmed">
              {t('cards.commerce.monthlyFeeNote')}
            </Text>
            <TextInput {...input('month', 'month')} placeholder="yyyy-MM" />
            <Button onClick={() => submit(['month'], () => ({ type: juxin ? 'zxj_monthly_function_fee' : 'monthly_function_fee', month: form.month.trim() }))} data-testid="create-monthly-fee">
              {t('cards.commerce.createOrder')}
            </Button>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="cardPurchase" pt="md">
          {purchase(juxin ? (unified ? 'zxj_unify_sim' : 'zxj_sim') : unified ? 'unify_sim' : 'sim')}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

export const LinkPayDataPage = () => <PayDataPage juxin={false} />;
export const JuxinPayDataPage = () => <PayDataPage juxin />;
