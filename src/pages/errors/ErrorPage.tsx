import { Button, Center, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';

/** The 404 and 401 pages. */
export function ErrorPage({ code }: { code: 404 | 401 }) {
  const { t } = useTranslation();
  return (
    <Center h="100vh">
      <Stack align="center">
        <Title>{code}</Title>
        <Title order={3}>{t(code === 404 ? 'route.notFound' : 'route.unauthorized')}</Title>
        <Button component={Link} href="/dashboard/index">
          {t('error.back')}
        </Button>
      </Stack>
    </Center>
  );
}
