import { Button, Center, Stack, Title } from '@mantine/core';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';

/** The 404 and 401 pages; each takes its own page title (route title plus product title, platform-core section 2). */
export function ErrorPage({ code }: { code: 404 | 401 }) {
  const { t } = useTranslation();
  const title = t(code === 404 ? 'route.notFound' : 'route.unauthorized');
  useEffect(() => {
    document.title = `${title} - ${t('app.title')}`;
  }, [title, t]);
  return (
    <Center h="100vh">
      <Stack align="center">
        <Title>{code}</Title>
        <Title order={3}>{title}</Title>
        <Button component={Link} href="/dashboard/index">
          {t('error.back')}
        </Button>
      </Stack>
    </Center>
  );
}
