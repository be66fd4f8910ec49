import { Badge, Button, Group, Modal, NumberInput, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { TOAST_MS } from '../../api/request.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { activationModeLabels, precisionLabels, truePointAccountStateLabels, truePointServiceStateLabels } from '../../../protocol/index.ts';
import { commerceApi, type TruePointAccount, truePointApi, type TruePointEquipment } from '../../api/commerce.ts';
import type { Page } from '../../api/devices.ts';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from '../../format/date.ts';
import { label, options } from '../sim/card-labels.ts';

interface NewAccount {
  accountNo: string;
  instanceId: string;
  precision: string;
  chargeType: string;
  duration: number | string;
  activationMode: string;
}
type NewAccountErrors = Partial<Record<'accountNo' | 'instanceId' | 'duration', string>>;
const CHARGE_TYPES = ['yearly', 'monthly', 'trial'];
const DEFAULT_DAYS: Readonly<Record<string, number>> = { yearly: 365, monthly: 30, trial: 7 };

/** True-point service accounts: precision, charge, residual days, states; activate, enable, disable, lock. */
export function TruePointAccountPage() {
  const { t } = useTranslation();
  const paging = usePaging();
  const { pageNum, pageSize } = paging;
  const [page, setPage] = useState<Page<TruePointAccount>>();
  const load = useCallback(() => {
    truePointApi.accounts(pageNum, pageSize).then(setPage, () => undefined);
  }, [pageNum, pageSize]);
  useEffect(load, [load]);
  const act = (call: Promise<unknown>) => void call.then(load, () => undefined);
  const [staff, setStaff] = useState(false);
  useEffect(() => {
    commerceApi.paymentMode().then((m) => setStaff(m.staff), () => undefined);
  }, []);
  const [creating, setCreating] = useState<NewAccount>();
  const [errors, setErrors] = useState<NewAccountErrors>({});
  // The server's rules, said when a field loses focus (server/commerce/truepoint-routes.ts).
  const check = (k: keyof NewAccountErrors, a: NewAccount): string | undefined => {
    if (k === 'accountNo') return /^[A-Za-z0-9_-]{4,32}$/.test(a.accountNo.trim()) ? undefined : t('cards.truePoint.accountNoRule');
    if (k === 'instanceId') return /^[A-Za-z0-9_-]{1,64}$/.test(a.instanceId.trim()) ? undefined : t('cards.truePoint.instanceIdRule');
    const d = Number(a.duration);
    return a.duration !== '' && Number.isInteger(d) && d >= 1 && d <= 3650 ? undefined : t('cards.truePoint.durationRule');
  };
  const create = () => {
    if (!creating) return;
    const e: NewAccountErrors = { accountNo: check('accountNo', creating), instanceId: check('instanceId', creating), duration: check('duration', creating) };
    setErrors(e);
    if (Object.values(e).some(Boolean)) return;
    void truePointApi
      .addAccount({ accountNo: creating.accountNo.trim(), instanceId: creating.instanceId.trim(), precision: creating.precision, chargeType: creating.chargeType, duration: Number(creating.duration), activationMode: Number(creating.activationMode) })
      .then((r) => {
        setCreating(undefined);
        notifications.show({ color: 'green', message: t('cards.truePoint.created', { accountNo: r.accountNo }), autoClose: TOAST_MS });
        load();
      }, () => undefined);
  };
  const field = (k: keyof NewAccountErrors) => ({
    label: t(`cards.truePoint.${k}`),
    required: true,
    error: errors[k],
    onBlur: () => creating && setErrors((e) => ({ ...e, [k]: check(k, creating) })),
    'data-testid': `tp-${k}`,
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>{t('route.truePointAccount')}</Title>
        {staff && (
          <Button onClick={() => (setErrors({}), setCreating({ accountNo: '', instanceId: '', precision: 'CM', chargeType: 'yearly', duration: 365, activationMode: '1' }))} data-testid="tp-add">
            {t('cards.truePoint.add')}
          </Button>
        )}
      </Group>
      <Modal opened={creating !== undefined} onClose={() => setCreating(undefined)} title={t('cards.truePoint.addTitle')} centered>
        {creating && (
          <Stack>
            <TextInput {...field('accountNo')} value={creating.accountNo} onChange={(e) => setCreating({ ...creating, accountNo: e.currentTarget.value })} />
            <TextInput {...field('instanceId')} value={creating.instanceId} onChange={(e) => setCreating({ ...creating, instanceId: e.currentTarget.value })} />
            <Select label={t('cards.truePoint.precision')} data={options(precisionLabels)} value={creating.precision} onChange={(v) => setCreating({ ...creating, precision: v ?? 'CM' })} allowDeselect={false} data-testid="tp-precision" />
            <Select
              label={t('cards.truePoint.chargeType')}
              data={CHARGE_TYPES.map((c) => ({ value: c, label: t(`cards.truePoint.charge.${c}`) }))}
              value={creating.chargeType}
              onChange={(v) => setCreating({ ...creating, chargeType: v ?? 'yearly', duration: DEFAULT_DAYS[v ?? 'yearly'] ?? creating.duration })}
              allowDeselect={false}
              data-testid="tp-chargeType"
            />
            <NumberInput {...field('duration')} min={1} max={3650} allowDecimal={false} clampBehavior="none" value={creating.duration} onChange={(v) => setCreating({ ...creating, duration: v })} />
            <Select label={t('cards.truePoint.activationMode')} data={options(activationModeLabels)} value={creating.activationMode} onChange={(v) => setCreating({ ...creating, activationMode: v ?? '1' })} allowDeselect={false} />
            <Button onClick={create} data-testid="tp-create">
              {t('cards.truePoint.add')}
            </Button>
          </Stack>
        )}
      </Modal>
      <Table>
        <Table.Thead>
          <Table.Tr>
            {['accountNo', 'password', 'instanceId', 'precision', 'chargeType', 'duration', 'residualDays', 'serviceState', 'activationMode', 'accountState', 'times'].map((k) => (
              <Table.Th key={k}>{t(`cards.truePoint.${k}`)}</Table.Th>
            ))}
            <Table.Th>{t('cards.expiry')}</Table.Th>
            <Table.Th>{t('cards.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((a) => (
            <Table.Tr key={a.id}>
              <Table.Td>
                <Link href={`/true-point/equipment-manage?accountId=${a.id}`}>{a.accountNo}</Link>
              </Table.Td>
              <Table.Td ff="monospace">{a.password}</Table.Td>
              <Table.Td>{a.instanceId}</Table.Td>
              <Table.Td>{label(precisionLabels, a.precision)}</Table.Td>
              <Table.Td>{t(`cards.truePoint.charge.${a.chargeType}`)}</Table.Td>
              <Table.Td>{a.duration}</Table.Td>
              <Table.Td>{a.residualDays}</Table.Td>
              <Table.Td>
                <Badge variant="light">{label(truePointServiceStateLabels, a.serviceState)}</Badge>
              </Table.Td>
              <Table.Td>{label(activationModeLabels, a.activationMode)}</Table.Td>
              <Table.Td>{label(truePointAccountStateLabels, a.accountState)}</Table.Td>
              <Table.Td>{a.times}</Table.Td>
              <Table.Td>{formatDateTime(a.expireTime).slice(0, 10)}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
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
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter shown={page?.list.length} total={page?.total} emptyText={t('cards.truePoint.empty')} {...paging.footer} />
    </Stack>
  );
}

/** Equipment on true-point accounts: status, disable status, used days; disable or enable one. */
export function TruePointEquipmentPage() {
  const { t } = useTranslation();
  const accountId = Number(new URLSearchParams(useSearch()).get('accountId') ?? '0') || undefined;
  const [page, setPage] = useState<Page<TruePointEquipment>>();
  const load = useCallback(() => {
    truePointApi.equipment(accountId).then(setPage, () => undefined);
  }, [accountId]);
  useEffect(load, [load]);
  return (
    <Stack>
      <Title order={3}>{t('route.truePointEquipment')}</Title>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('cards.truePoint.equipmentId')}</Table.Th>
            <Table.Th>{t('cards.truePoint.accountNo')}</Table.Th>
            <Table.Th>{t('cards.truePoint.serviceState')}</Table.Th>
            <Table.Th>{t('cards.truePoint.disableStatus')}</Table.Th>
            <Table.Th>{t('cards.truePoint.usedDays')}</Table.Th>
            <Table.Th>{t('cards.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((e) => (
            <Table.Tr key={e.id}>
              <Table.Td>{e.equipmentId}</Table.Td>
              <Table.Td>{e.accountNo}</Table.Td>
              <Table.Td>{label(truePointServiceStateLabels, e.status)}</Table.Td>
              <Table.Td>{label(truePointAccountStateLabels, e.disableStatus)}</Table.Td>
              <Table.Td>{e.usedDays}</Table.Td>
              <Table.Td>
                <Button size="compact-xs" variant="subtle" onClick={() => void truePointApi.disable(e.id, e.disableStatus === 1).then(load, () => undefined)}>
                  {t(e.disableStatus === 1 ? 'cards.truePoint.disable' : 'cards.truePoint.enable')}
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
