import { Badge, Button, Group, Modal, NumberInput, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { TOAST_MS } from '../../api/request.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { activationModeLabels, precisionLabels, truePointAccountStateLabels, truePointServiceStateLabels } from '../../../protocol/index.ts';
import { commerceApi, type TruePointAccount, truePointApi, type TruePointEquipment } from '../../api/commerce.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage } from '../../components/local-page.ts';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { formatDateTime } from '../../format/date.ts';
import { label, options } from '../sim/card-labels.ts';
import { FormActions } from '../../components/FormActions.tsx';

/** The new account form's values, every one a string as the one form pattern holds them. */
type NewAccount = { accountNo: string; instanceId: string; precision: string; chargeType: string; duration: string; activationMode: string };
const NEW_ACCOUNT: NewAccount = { accountNo: '', instanceId: '', precision: 'CM', chargeType: 'yearly', duration: '365', activationMode: '1' };
const CHARGE_TYPES = ['yearly', 'monthly', 'trial'];
const DEFAULT_DAYS: Readonly<Record<string, number>> = { yearly: 365, monthly: 30, trial: 7 };

/** True-point service accounts: precision, charge, residual days, states; activate, enable, disable, lock. */
export function TruePointAccountPage() {
  const { t } = useTranslation();
  const [reload, setReload] = useState(0);
  const load = useCallback((q: ListQuery) => truePointApi.accounts(q.pageNum, q.pageSize), []);
  const refresh = () => setReload((n) => n + 1);
  const act = (call: Promise<unknown>) => void call.then(refresh, () => undefined);
  const columns: DataColumn<TruePointAccount>[] = [
    { key: 'accountNo', title: t('cards.truePoint.accountNo'), fixed: true, render: (a) => <Link href={`/true-point/equipment-manage?accountId=${a.id}`}>{a.accountNo}</Link> },
    // Fits 1366 px in English with the actions column: the password, the bought duration, the activation mode
    // and the activation count are offered in the column choice rather than shown at first.
    {
      key: 'password',
      title: t('cards.truePoint.password'),
      hiddenByDefault: true,
      render: (a) => (
        <Text size="sm" ff="monospace">
          {a.password}
        </Text>
      ),
    },
    { key: 'instanceId', title: t('cards.truePoint.instanceId'), style: { whiteSpace: 'nowrap' }, render: (a) => a.instanceId },
    { key: 'precision', title: t('cards.truePoint.precision'), render: (a) => label(precisionLabels, a.precision) },
    { key: 'chargeType', title: t('cards.truePoint.chargeType'), render: (a) => t(`cards.truePoint.charge.${a.chargeType}`) },
    { key: 'duration', title: t('cards.truePoint.duration'), hiddenByDefault: true, render: (a) => a.duration },
    { key: 'residualDays', title: t('cards.truePoint.residualDays'), render: (a) => a.residualDays },
    { key: 'serviceState', title: t('cards.truePoint.serviceState'), render: (a) => <Badge variant="light">{label(truePointServiceStateLabels, a.serviceState)}</Badge> },
    { key: 'activationMode', title: t('cards.truePoint.activationMode'), hiddenByDefault: true, render: (a) => label(activationModeLabels, a.activationMode) },
    { key: 'accountState', title: t('cards.truePoint.accountState'), render: (a) => label(truePointAccountStateLabels, a.accountState) },
    { key: 'times', title: t('cards.truePoint.times'), hiddenByDefault: true, render: (a) => a.times },
    { key: 'expiry', title: t('cards.expiry'), style: { whiteSpace: 'nowrap' }, render: (a) => formatDateTime(a.expireTime).slice(0, 10) },
  ];
  const [staff, setStaff] = useState(false);
  useEffect(() => {
    commerceApi.paymentMode().then((m) => setStaff(m.staff), () => undefined);
  }, []);
  const [creating, setCreating] = useState(false);
  // The server's rules, said when a field loses focus (server/commerce/truepoint-routes.ts).
  const { form, field, onSubmit, submitting } = useConsoleForm<NewAccount>({
    initialValues: NEW_ACCOUNT,
    rules: {
      accountNo: [rules.key((v) => (/^[A-Za-z0-9_-]{4,32}$/.test(v.trim()) ? undefined : 'cards.truePoint.accountNoRule'))],
      instanceId: [rules.key((v) => (/^[A-Za-z0-9_-]{1,64}$/.test(v.trim()) ? undefined : 'cards.truePoint.instanceIdRule'))],
      duration: [rules.key((v) => (/^[1-9][0-9]*$/.test(v.trim()) && Number(v) <= 3650 ? undefined : 'cards.truePoint.durationRule'))],
    },
    serverKeys: { 'truePoint.accountNo': 'accountNo', 'truePoint.accountTaken': 'accountNo', 'truePoint.instanceId': 'instanceId' },
  });
  const create = async (a: NewAccount) => {
    const r = await truePointApi.addAccount({
      accountNo: a.accountNo.trim(),
      instanceId: a.instanceId.trim(),
      precision: a.precision,
      chargeType: a.chargeType,
      duration: Number(a.duration),
      activationMode: Number(a.activationMode),
    });
    setCreating(false);
    notifications.show({ color: 'green', message: t('cards.truePoint.created', { accountNo: r.accountNo }), autoClose: TOAST_MS });
    refresh();
  };
  const text = (k: 'accountNo' | 'instanceId' | 'duration') => ({ label: t(`cards.truePoint.${k}`), required: true, ...field(k), 'data-testid': `tp-${k}` });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>{t('route.truePointAccount')}</Title>
        {staff && (
          <Button onClick={() => (form.reset(), setCreating(true))} data-testid="tp-add">
            {t('cards.truePoint.add')}
          </Button>
        )}
      </Group>
      <Modal opened={creating} onClose={() => setCreating(false)} title={t('cards.truePoint.addTitle')} centered>
        <form onSubmit={onSubmit(create)} noValidate>
          <Stack>
            <TextInput {...text('accountNo')} />
            <TextInput {...text('instanceId')} />
            <Select label={t('cards.truePoint.precision')} data={options(precisionLabels)} {...field('precision')} onChange={(v) => form.setFieldValue('precision', v ?? 'CM')} allowDeselect={false} data-testid="tp-precision" />
            <Select
              label={t('cards.truePoint.chargeType')}
              data={CHARGE_TYPES.map((c) => ({ value: c, label: t(`cards.truePoint.charge.${c}`) }))}
              {...field('chargeType')}
              onChange={(v) => form.setValues({ chargeType: v ?? 'yearly', duration: String(DEFAULT_DAYS[v ?? 'yearly'] ?? form.getValues().duration) })}
              allowDeselect={false}
              data-testid="tp-chargeType"
            />
            <NumberInput {...text('duration')} min={1} max={3650} allowDecimal={false} clampBehavior="none" onChange={(v) => form.setFieldValue('duration', String(v))} />
            <Select
              label={t('cards.truePoint.activationMode')}
              data={options(activationModeLabels)}
              {...field('activationMode')}
              onChange={(v) => form.setFieldValue('activationMode', v ?? '1')}
              allowDeselect={false}
            />
            <FormActions submitting={submitting} onCancel={() => setCreating(false)} submitLabel={t('cards.truePoint.add')} submitTestId="tp-create" />
          </Stack>
        </form>
      </Modal>
      <DataTable<TruePointAccount, number>
        id="true-point-accounts"
        columns={columns}
        rowKey={(a) => a.id}
        load={load}
        reload={reload}
        emptyText={t('cards.truePoint.empty')}
        actions={(a) => (
          <>
            {a.serviceState === 1 && a.accountState === 1 && (
              <Button size="compact-xs" variant="light" onClick={() => act(truePointApi.activate(a.id))}>
                {t('cards.truePoint.activate')}
              </Button>
            )}
            {a.accountState !== 1 && (
              <Button size="compact-xs" variant="subtle" onClick={() => act(truePointApi.setState(a.id, 1))}>
                {t('cards.truePoint.enable')}
              </Button>
            )}
            {a.accountState === 1 && (
              <Button size="compact-xs" variant="subtle" color="orange" onClick={() => act(truePointApi.setState(a.id, 2))}>
                {t('cards.truePoint.disable')}
              </Button>
            )}
            {a.accountState !== 3 && (
              <Button size="compact-xs" variant="subtle" color="red" onClick={() => act(truePointApi.setState(a.id, 3))}>
                {t('cards.truePoint.lock')}
              </Button>
            )}
          </>
        )}
      />
    </Stack>
  );
}

/** Equipment on true-point accounts: status, disable status, used days; disable or enable one. */
export function TruePointEquipmentPage() {
  const { t } = useTranslation();
  const accountId = Number(new URLSearchParams(useSearch()).get('accountId') ?? '0') || undefined;
  const [reload, setReload] = useState(0);
  // The server answers an account's equipment whole; the table pages it here.
  const load = useCallback(async (q: ListQuery) => localPage((await truePointApi.equipment(accountId)).list, q), [accountId]);
  const refresh = () => setReload((n) => n + 1);
  const columns: DataColumn<TruePointEquipment>[] = [
    { key: 'equipmentId', title: t('cards.truePoint.equipmentId'), fixed: true, render: (e) => e.equipmentId },
    { key: 'accountNo', title: t('cards.truePoint.accountNo'), render: (e) => e.accountNo },
    { key: 'status', title: t('cards.truePoint.serviceState'), render: (e) => label(truePointServiceStateLabels, e.status) },
    { key: 'disableStatus', title: t('cards.truePoint.disableStatus'), render: (e) => label(truePointAccountStateLabels, e.disableStatus) },
    { key: 'usedDays', title: t('cards.truePoint.usedDays'), render: (e) => e.usedDays },
  ];
  return (
    <Stack>
      <Title order={3}>{t('route.truePointEquipment')}</Title>
      <DataTable<TruePointEquipment, number>
        id="true-point-equipment"
        columns={columns}
        rowKey={(e) => e.id}
        load={load}
        filterKey={String(accountId ?? '')}
        reload={reload}
        actions={(e) => (
          <Button size="compact-xs" variant="subtle" onClick={() => void truePointApi.disable(e.id, e.disableStatus === 1).then(refresh, () => undefined)}>
            {t(e.disableStatus === 1 ? 'cards.truePoint.disable' : 'cards.truePoint.enable')}
          </Button>
        )}
      />
    </Stack>
  );
}
