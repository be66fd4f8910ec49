import { Button, Center, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import { useSnapshot } from 'valtio';
import { request } from '../../api/request.ts';
import { session } from '../../state/session.ts';
import { OrderDemandDetailPage } from '../commerce/OrderDemandPages.tsx';

type State = 'missing' | 'checking' | 'invalid' | 'ok';

/**
 * /order-demand-detail: a shared order demand. Without a number and token, or with ones the server does
 * not accept, a friendly page says what to do instead of an error over an empty card.
 */
export function OrderDemandDetailGate() {
  const { t } = useTranslation();
  const params = new URLSearchParams(useSearch());
  const number = params.get('number')?.trim() ?? '';
  const token = params.get('token')?.trim() ?? '';
  const signedIn = Boolean(useSnapshot(session).token);
  const [state, setState] = useState<State>(number && token ? 'checking' : 'missing');
  useEffect(() => {
    if (!number || !token) return;
    // Silent: a refused link is this page's to explain, not a toast's.
    request<unknown>({ method: 'GET', url: '/order-demand-detail/view', params: { number, token }, silent: true }).then(
      () => setState('ok'),
      () => setState('invalid'),
    );
  }, [number, token]);
  if (state === 'ok') return <OrderDemandDetailPage />;
  if (state === 'checking') {
    return (
      <Center mih={240}>
        <Stack align="center">
          <Loader size="sm" />
          <Text c="dimmed">{t('publicPages.checking')}</Text>
        </Stack>
      </Center>
    );
  }
  const missing = state === 'missing';
  return (
    <Paper withBorder p="xl" maw={560} mx="auto" mt={60} data-testid="demand-link-problem">
      <Stack align="center" ta="center">
        <Title order={3}>{t(missing ? 'publicPages.demandMissingTitle' : 'publicPages.demandInvalidTitle')}</Title>
        <Text c="dimmed">{t(missing ? 'publicPages.demandMissing' : 'publicPages.demandInvalid')}</Text>
        <Button component={Link} href={signedIn ? '/dashboard/index' : '/login'} variant="light">
          {t(signedIn ? 'publicPages.openConsole' : 'publicPages.signIn')}
        </Button>
      </Stack>
    </Paper>
  );
}
