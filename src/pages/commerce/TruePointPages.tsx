import { Badge, Button, Group, Stack, Table, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { activationModeLabels, precisionLabels, truePointAccountStateLabels, truePointServiceStateLabels } from '../../../protocol/index.ts';
import { type TruePointAccount, truePointApi, type TruePointEquipment } from '../../api/commerce.ts';
import type { Page } from '../../api/devices.ts';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from '../../format/date.ts';
import { label } from '../sim/card-labels.ts';

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
  return (
    <Stack>
      <Title order={3}>{t('route.truePointAccount')}</Title>
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
